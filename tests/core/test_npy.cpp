// test_npy.cpp: .npy round trips for every dtype and rank, files numpy wrote (when python3 has numpy), every kind of
// malformed header, random bytes, and .npz files checked entry by entry (and by numpy.load where available).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <unistd.h>

#include "core/half.h"
#include "core/npy.h"
#include "test_support.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed afterwards.
class NpyTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / fmt::format("strata_npy_{}_{}", getpid(), info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    fs::path dir_;
};

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A .npy file with the given header text (padded and terminated as numpy does) and `data_bytes` bytes of data.
std::string npy_with_header(const std::string& dict, size_t data_bytes, int major = 1) {
    std::string header = dict;
    const size_t prefix = major == 1 ? 10 : 12;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header.push_back('\n');
    std::string out = "\x93NUMPY";
    out.push_back(static_cast<char>(major));
    out.push_back('\0');
    for (size_t i = 0; i < prefix - 8; ++i) out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
    out += header;
    std::mt19937 rng(static_cast<uint32_t>(test::test_seed()));
    for (size_t i = 0; i < data_bytes; ++i) out.push_back(static_cast<char>(rng() & 1));
    return out;
}

void expect_same_tensor(const Tensor& got, const Tensor& want) {
    ASSERT_EQ(got.dtype(), want.dtype());
    ASSERT_EQ(shape_str(got.shape()), shape_str(want.shape()));
    ASSERT_EQ(got.nbytes(), want.nbytes());
    EXPECT_EQ(std::memcmp(got.raw(), want.raw(), want.nbytes()), 0);
}

// Reads `path` expecting a parse_error whose message names the file and contains `problem`.
void expect_parse_error(const std::string& path, const std::string& problem) {
    try {
        read_npy(path);
        ADD_FAILURE() << "no error for " << path << " (expected: " << problem << ")";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::parse_error) << e.what();
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "message is not one line: " << e.what();
    }
}

// ------------------------------------------------------------------------------------------------------------------
// Round trips

TEST_F(NpyTest, RoundTripEveryDtypeAndRank0To5) {
    const Shape shapes[] = {{}, {7}, {3, 5}, {2, 3, 5}, {1, 3, 5, 7}, {2, 1, 3, 5, 3}};
    const DType dtypes[] = {DType::f32, DType::f16, DType::i64, DType::i32, DType::i8, DType::u8, DType::boolean};
    uint64_t seed = test::test_seed();
    for (DType dtype : dtypes) {
        for (const Shape& shape : shapes) {
            SCOPED_TRACE(fmt::format("dtype {} shape {} seed {}", dtype_name(dtype), shape_str(shape), seed));
            Tensor t = test::random_tensor(dtype, shape, seed++, -100, 100);
            const std::string p = path("t.npy");
            write_npy(p, t);
            const std::string bytes = file_bytes(p);
            ASSERT_GE(bytes.size(), 10u);
            EXPECT_EQ(bytes[6], 1) << "written as version 1.0";
            const size_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
            EXPECT_EQ((10 + header_len) % 64, 0u) << "data must start 64-byte aligned";
            expect_same_tensor(read_npy(p), t);
        }
    }
}

TEST_F(NpyTest, ZeroSizedDimensionRoundTrips) {
    Tensor t = Tensor::empty(DType::f32, {3, 0, 5});
    write_npy(path("e.npy"), t);
    Tensor back = read_npy(path("e.npy"));
    EXPECT_EQ(shape_str(back.shape()), "[3,0,5]");
}

TEST_F(NpyTest, Bfloat16IsWrittenAsFloat32) {
    Tensor t = test::random_tensor(DType::bf16, {3, 7}, test::test_seed());
    write_npy(path("b.npy"), t);
    Tensor back = read_npy(path("b.npy"));
    ASSERT_EQ(back.dtype(), DType::f32);
    for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(back.data<float>()[i], bf16_to_float(t.data<uint16_t>()[i]));
}

TEST_F(NpyTest, PublicApiReturnsStatus) {
    Tensor t = test::random_tensor(DType::f32, {2, 3}, test::test_seed());
    ASSERT_TRUE(t.to_npy(path("a.npy")).is_ok());
    Expected<Tensor> back = Tensor::from_npy(path("a.npy"));
    ASSERT_TRUE(back.ok());
    expect_same_tensor(*back, t);
    Expected<Tensor> missing = Tensor::from_npy(path("missing.npy"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().code(), StatusCode::not_found);
    EXPECT_NE(missing.status().message().find("missing.npy"), std::string::npos);
}

TEST_F(NpyTest, AcceptsHeaderVariantsNumpyAndOthersWrite) {
    struct Case {
        std::string dict;
        int major;
    };
    const Case cases[] = {
        {"{'shape': (3, 5), 'fortran_order': False, 'descr': '<f4'}", 1},        // any key order, no trailing comma
        {"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,5)}", 1},  // double quotes, no spaces
        {"{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 3 , 5 , ) , }", 1},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 5L), }", 1},  // Python 2 long integers
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", 2},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", 3},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.dict);
        put_file(path("v.npy"), npy_with_header(c.dict, 3 * 5 * 4, c.major));
        Tensor t = read_npy(path("v.npy"));
        EXPECT_EQ(t.dtype(), DType::f32);
        EXPECT_EQ(shape_str(t.shape()), "[3,5]");
    }
}

// Arrays numpy itself wrote, in every supported dtype and header version; the raw bytes beside them are the truth.
TEST_F(NpyTest, ReadsFilesNumpyWrote) {
    if (test::run_command("python3 -c 'import numpy'").exit_code != 0) GTEST_SKIP() << "python3 with numpy not found";
    const std::string script = fmt::format(R"(
import numpy as np
rng = np.random.default_rng({seed})
types = ['<f4', '<f2', '<i8', '<i4', '|i1', '|u1', '|b1']
for i, t in enumerate(types):
    for v in [(1, 0), (2, 0), (3, 0)]:
        if t[1] == 'f':
            a = rng.standard_normal((2, 3, 5)).astype(t)
        else:
            a = rng.integers(0 if t[1] in 'ub' else -100, 2 if t[1] == 'b' else 100, (2, 3, 5)).astype(t)
        name = '{dir}/np_%s_%d' % (i, v[0])
        with open(name + '.npy', 'wb') as f:
            np.lib.format.write_array(f, a, version=v)
        with open(name + '.bin', 'wb') as f:
            f.write(a.tobytes())
)",
                                           fmt::arg("seed", test::test_seed() % 1000000),
                                           fmt::arg("dir", dir_.string()));
    put_file(path("gen.py"), script);
    auto r = test::run_command("python3 " + path("gen.py"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const DType want[] = {DType::f32, DType::f16, DType::i64, DType::i32, DType::i8, DType::u8, DType::boolean};
    for (int i = 0; i < 7; ++i) {
        for (int v = 1; v <= 3; ++v) {
            const std::string base = path(fmt::format("np_{}_{}", i, v));
            SCOPED_TRACE(base);
            Tensor t = read_npy(base + ".npy");
            EXPECT_EQ(t.dtype(), want[i]);
            EXPECT_EQ(shape_str(t.shape()), "[2,3,5]");
            const std::string raw = file_bytes(base + ".bin");
            ASSERT_EQ(raw.size(), t.nbytes());
            EXPECT_EQ(std::memcmp(raw.data(), t.raw(), raw.size()), 0);
        }
    }
}

// ------------------------------------------------------------------------------------------------------------------
// Malformed files

TEST_F(NpyTest, MissingFileIsNotFound) {
    try {
        read_npy(path("nope.npy"));
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::not_found);
        EXPECT_NE(std::string(e.what()).find("nope.npy"), std::string::npos);
    }
}

TEST_F(NpyTest, DataSizeMismatchNamesBothSizes) {
    put_file(path("x.npy"), npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }",
                                            1000));
    expect_parse_error(path("x.npy"), "header says 602112 bytes of data, file has 1000");
    put_file(path("y.npy"), npy_with_header("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 25));
    expect_parse_error(path("y.npy"), "header says 24 bytes of data, file has 25");
}

TEST_F(NpyTest, EveryMalformedHeaderIsAParseError) {
    struct Case {
        const char* dict;
        const char* problem;
    };
    const Case cases[] = {
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", "fortran_order True is not supported"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", "float64"},
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", "big-endian"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }", "dtype '<c8' is not supported"},
        {"{'descr': '<U7', 'fortran_order': False, 'shape': (2, 3), }", "dtype '<U7' is not supported"},
        {"{'descr': 'f4', 'fortran_order': False, 'shape': (2, 3), }", "not a numpy dtype string"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3), }", "structured dtypes"},
        {"{'descr': True, 'fortran_order': False, 'shape': (2, 3), }", "'descr' must be a string"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", "value of 'fortran_order'"},
        {"{'descr': '<f4', 'fortran_order': '', 'shape': (2, 3), }", "'fortran_order' must be True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': 6, }", "value of 'shape'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': '6', }", "'shape' must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", "negative dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3.5), }", "expected ',' or ')'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "too large"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", "too large"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1, }", "unexpected key 'extra'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", "appears twice"},
        {"{'descr': '<f4', 'shape': (2, 3), }", "must have the keys"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3) 'x'}", "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } junk", "unexpected text after the header"},
        {"{'descr: '<f4', 'fortran_order': False, 'shape': (2, 3), }", "expected ':'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ", "a dict key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3", "expected ',' or ')'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x", "unterminated string"},
        {"['descr', '<f4']", "is not a Python dict"},
        {"", "is not a Python dict"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.dict);
        put_file(path("bad.npy"), npy_with_header(c.dict, 24));
        expect_parse_error(path("bad.npy"), c.problem);
    }
}

TEST_F(NpyTest, BadPreambleIsAParseError) {
    const std::string good = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24);
    put_file(path("empty.npy"), "");
    expect_parse_error(path("empty.npy"), "not a .npy file");
    put_file(path("magic.npy"), "\x93NUMPZ" + good.substr(6));
    expect_parse_error(path("magic.npy"), "not a .npy file");
    put_file(path("short.npy"), good.substr(0, 9));
    expect_parse_error(path("short.npy"), "not a .npy file");
    std::string v4 = good;
    v4[6] = 4;
    put_file(path("v4.npy"), v4);
    expect_parse_error(path("v4.npy"), "version 4.0 is not supported");
    std::string v11 = good;
    v11[7] = 1;
    put_file(path("v11.npy"), v11);
    expect_parse_error(path("v11.npy"), "version 1.1 is not supported");
    put_file(path("v2short.npy"), good.substr(0, 8) + "\x02");
    expect_parse_error(path("v2short.npy"), "not a .npy file");
    std::string v2 = good.substr(0, 10);
    v2[6] = 2;
    put_file(path("v2cut.npy"), v2);
    expect_parse_error(path("v2cut.npy"), "ends inside the header");
    put_file(path("cut.npy"), good.substr(0, 40));
    expect_parse_error(path("cut.npy"), "runs past the end of the file");
}

// Random bytes and randomly corrupted valid files: a strata::Error or a tensor, never a crash or another exception.
TEST_F(NpyTest, RandomBytesNeverCrash) {
    const uint64_t seed = test::test_seed();
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937_64 rng(seed);
    const std::string good = npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 5, 7), }", 420);
    int errors = 0;
    for (int iter = 0; iter < 600; ++iter) {
        std::string bytes;
        if (iter % 3 == 0) {
            bytes.resize(rng() % 300);
            for (char& b : bytes) b = static_cast<char>(rng());
        } else if (iter % 3 == 1) {
            bytes = good.substr(0, rng() % good.size());  // truncated anywhere
        } else {
            bytes = good;
            for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) bytes[rng() % 128] = static_cast<char>(rng());
        }
        put_file(path("r.npy"), bytes);
        try {
            Tensor t = read_npy(path("r.npy"));
            EXPECT_LT(t.nbytes(), bytes.size()) << "iteration " << iter << ": data cannot exceed the file";
        } catch (const Error& e) {
            ++errors;
            EXPECT_NE(std::string(e.what()).find("r.npy"), std::string::npos) << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "iteration " << iter << ": unexpected exception " << e.what();
        }
    }
    EXPECT_GT(errors, 400) << "most random files must be rejected";
}

// ------------------------------------------------------------------------------------------------------------------
// .npz

uint32_t crc32_bitwise(const std::string& data) {
    uint32_t crc = 0xffffffffu;
    for (unsigned char b : data) {
        crc ^= b;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

uint32_t le(const std::string& s, size_t at, int width) {
    uint32_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(s.at(at + i));
    return v;
}

TEST_F(NpyTest, NpzEntriesAreTheNpyFilesWithCorrectCrc) {
    const uint64_t seed = test::test_seed();
    std::map<std::string, Tensor> tensors{{"logits", test::random_tensor(DType::f32, {3, 11}, seed)},
                                          {"aux", test::random_tensor(DType::i64, {5}, seed + 1, 0, 1000)}};
    write_npz(path("out.npz"), tensors);
    const std::string zip = file_bytes(path("out.npz"));
    const size_t eocd = zip.size() - 22;
    ASSERT_EQ(le(zip, eocd, 4), 0x06054b50u);
    ASSERT_EQ(le(zip, eocd + 10, 2), tensors.size());
    size_t central = le(zip, eocd + 16, 4);
    for (const auto& [name, tensor] : tensors) {
        SCOPED_TRACE(name);
        ASSERT_EQ(le(zip, central, 4), 0x02014b50u);
        const size_t name_len = le(zip, central + 28, 2);
        EXPECT_EQ(zip.substr(central + 46, name_len), name + ".npy");  // std::map order: sorted by name
        const size_t local = le(zip, central + 42, 4);
        ASSERT_EQ(le(zip, local, 4), 0x04034b50u);
        EXPECT_EQ(le(zip, local + 8, 2), 0u) << "stored, not compressed";
        const size_t size = le(zip, local + 18, 4);
        const size_t data = local + 30 + le(zip, local + 26, 2) + le(zip, local + 28, 2);
        write_npy(path("single.npy"), tensor);
        EXPECT_EQ(zip.substr(data, size), file_bytes(path("single.npy")));
        EXPECT_EQ(le(zip, local + 14, 4), crc32_bitwise(zip.substr(data, size)));
        EXPECT_EQ(le(zip, central + 16, 4), crc32_bitwise(zip.substr(data, size)));
        central += 46 + name_len;
    }
}

TEST_F(NpyTest, NpzIsReadableByNumpy) {
    if (test::run_command("python3 -c 'import numpy'").exit_code != 0) GTEST_SKIP() << "python3 with numpy not found";
    const uint64_t seed = test::test_seed();
    std::map<std::string, Tensor> tensors{{"a", test::random_tensor(DType::f32, {2, 3, 5}, seed)},
                                          {"b", test::random_tensor(DType::u8, {7}, seed + 1, 0, 255)},
                                          {"c", test::random_tensor(DType::f16, {}, seed + 2)}};
    write_npz(path("out.npz"), tensors);
    for (const auto& [name, tensor] : tensors) write_npy(path(name + ".npy"), tensor);
    const std::string script = fmt::format(R"(
import numpy as np, zipfile
assert zipfile.ZipFile('{dir}/out.npz').testzip() is None
z = np.load('{dir}/out.npz')
assert sorted(z.files) == ['a', 'b', 'c'], z.files
for k in z.files:
    w = np.load('{dir}/' + k + '.npy')
    assert z[k].dtype == w.dtype and z[k].shape == w.shape and z[k].tobytes() == w.tobytes(), k
)",
                                           fmt::arg("dir", dir_.string()));
    put_file(path("check.py"), script);
    auto r = test::run_command("python3 " + path("check.py"));
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace strata

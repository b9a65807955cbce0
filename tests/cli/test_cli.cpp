// test_cli.cpp: the built `strata` binary, run as a user runs it: help and version, zoo, run (random, .npy and image
// input, --output read back and compared with the engine called in-process), bench --json, inspect, and one test per
// user error, each of which must exit non-zero with exactly one line that names the problem.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <unistd.h>

#include "core/image.h"
#include "core/npy.h"
#include "frontend/onnx/onnx_import.h"
#include "strata/engine.h"
#include "test_support.h"
#include "zoo/zoo.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace strata {
namespace {

namespace fs = std::filesystem;

// The smallest zoo network keeps these tests quick on a shared CPU.
constexpr const char* kNet = "squeezenet1_1";

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / fmt::format("strata_cli_{}_{}", getpid(), info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    static test::CommandResult strata(const std::string& args) {
        return test::run_command("'" + test::cli_path() + "' " + args);
    }

    // A user error: non-zero exit (1, or 2 for usage errors), exactly one line, "strata: error: ..." naming `what`.
    static void expect_one_line_error(const std::string& args, const std::string& what, int exit_code = 1) {
        SCOPED_TRACE("strata " + args);
        const test::CommandResult r = strata(args);
        EXPECT_EQ(r.exit_code, exit_code) << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
        EXPECT_EQ(r.output.rfind("strata: error: ", 0), 0u) << r.output;
        EXPECT_NE(r.output.find(what), std::string::npos) << "expected '" << what << "' in: " << r.output;
    }

    fs::path dir_;
};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The class indices printed on "  row R:" lines, in printed order.
std::vector<std::vector<int64_t>> printed_top_k(const std::string& output) {
    std::vector<std::vector<int64_t>> rows;
    for (const std::string& line : lines_of(output)) {
        if (line.rfind("  row ", 0) != 0) continue;
        std::vector<int64_t> classes;
        std::istringstream in(line.substr(line.find(':') + 1));
        std::string cls, value;
        while (in >> cls >> value) classes.push_back(std::stoll(cls));
        rows.push_back(classes);
    }
    return rows;
}

// The K largest entries of each row of an [N,C] float32 tensor, largest first.
std::vector<std::vector<int64_t>> top_k(const Tensor& t, int k) {
    std::vector<std::vector<int64_t>> rows;
    for (int64_t r = 0; r < t.dim(0); ++r) {
        const float* row = t.data<float>() + r * t.dim(1);
        std::vector<int64_t> idx(static_cast<size_t>(t.dim(1)));
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
        rows.emplace_back(idx.begin(), idx.begin() + k);
    }
    return rows;
}

// The zoo network run in-process through the public API: what the command line must reproduce.
Tensor run_in_process(const Tensor& input) {
    Model model = Model::from_zoo(kNet).value();
    BuildOptions options;
    options.batch = static_cast<int>(input.dim(0));
    Engine engine = Engine::build(model, options).value();
    Context context = engine.make_context().value();
    return context.run({{model.inputs().at(0).name, input}}).value().at(model.outputs().at(0).name);
}

// ------------------------------------------------------------------------------------------------------------------
// Help, version, zoo

TEST_F(CliTest, VersionPrintsExactlyTheVersion) {
    const auto r = strata("--version");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output, "strata 0.1.0\n");
}

TEST_F(CliTest, HelpListsEverySubcommandAndEachHasAnExample) {
    const auto r = strata("--help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* sub : {"run", "bench", "inspect", "zoo", "build", "profile"}) {
        EXPECT_NE(r.output.find(std::string("  ") + sub), std::string::npos) << sub << " missing from:\n" << r.output;
        const auto h = strata(std::string(sub) + " --help");
        EXPECT_EQ(h.exit_code, 0) << sub;
        EXPECT_NE(h.output.find("Example"), std::string::npos) << sub << " --help has no example:\n" << h.output;
    }
}

TEST_F(CliTest, NoSubcommandIsAUsageError) { expect_one_line_error("", "subcommand is required", 2); }

TEST_F(CliTest, ZooListsEveryBuiltInNetworkOnItsOwnLine) {
    const auto r = strata("zoo");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto lines = lines_of(r.output);
    const auto names = zoo::names();
    ASSERT_EQ(lines.size(), names.size()) << r.output;
    for (size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(lines[i].rfind(names[i] + " ", 0), 0u) << lines[i];
        EXPECT_GT(lines[i].size(), names[i].size() + 10) << "no description: " << lines[i];
    }
}

TEST_F(CliTest, ProfileOnTheCpuSaysItTimesGpuSteps) {
    expect_one_line_error("profile mobilenet_v2 --device cpu", "strata profile times GPU steps (use --device cuda)");
}

// ------------------------------------------------------------------------------------------------------------------
// run

TEST_F(CliTest, RunZooNetworkWithRandomInputPrintsTopKThatMatchesTheSavedOutput) {
    const auto r = strata(fmt::format("run {} --batch 2 --top 4 --output '{}'", kNet, path("out.npy")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("seeded random normal"), std::string::npos) << "random input must be announced";
    EXPECT_NE(r.output.find("logits [2,1000]"), std::string::npos) << r.output;
    Tensor logits = read_npy(path("out.npy"));
    ASSERT_EQ(shape_str(logits.shape()), "[2,1000]");
    EXPECT_EQ(printed_top_k(r.output), top_k(logits, 4)) << r.output;
}

TEST_F(CliTest, RunNpyInputSetsTheBatchAndMatchesTheEngineInProcess) {
    const uint64_t seed = test::test_seed();
    Tensor x = test::random_tensor(DType::f32, {3, 3, 224, 224}, seed, -2, 2);
    write_npy(path("x.npy"), x);
    const auto r = strata(fmt::format("run {} --input '{}' --output '{}'", kNet, path("x.npy"), path("y.npy")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("random"), std::string::npos) << "a given input is not random: " << r.output;
    Tensor got = read_npy(path("y.npy"));
    ASSERT_EQ(shape_str(got.shape()), "[3,1000]");
    EXPECT_LE(test::max_rel_error(got, run_in_process(x)), 1e-5) << "seed " << seed;
    EXPECT_EQ(printed_top_k(r.output), top_k(got, 5));
}

TEST_F(CliTest, RunNpzOutputHoldsEveryOutputByName) {
    const auto r = strata(fmt::format("run {} --output '{}'", kNet, path("all.npz")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    if (test::run_command("python3 -c 'import numpy'").exit_code != 0) GTEST_SKIP() << "python3 with numpy not found";
    const auto py = test::run_command(fmt::format(
        "python3 -c \"import numpy as np; z = np.load('{}'); print(sorted((k, z[k].shape) for k in z.files))\"",
        path("all.npz")));
    EXPECT_EQ(py.exit_code, 0) << py.output;
    EXPECT_EQ(py.output, "[('logits', (1, 1000))]\n");
}

TEST_F(CliTest, RunImageInputMatchesTheEngineOnTheNormalisedImage) {
    const int w = 97, h = 131;
    std::vector<uint8_t> px(static_cast<size_t>(w) * h * 3);
    std::mt19937_64 rng(test::test_seed());
    for (uint8_t& p : px) p = static_cast<uint8_t>(rng());
    ASSERT_NE(stbi_write_png(path("cat.png").c_str(), w, h, 3, px.data(), w * 3), 0);
    const auto r = strata(fmt::format("run {} --input '{}' --output '{}'", kNet, path("cat.png"), path("y.npy")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Tensor got = read_npy(path("y.npy"));
    ASSERT_EQ(shape_str(got.shape()), "[1,1000]");
    EXPECT_LE(test::max_rel_error(got, run_in_process(load_image(path("cat.png"), 224, 224))), 1e-5);
}

// An image with --batch N is the same image N times: every row of the output equals the single-image output.
TEST_F(CliTest, RunImageWithBatchRepeatsTheImage) {
    const int w = 64, h = 48;
    std::vector<uint8_t> px(static_cast<size_t>(w) * h * 3);
    std::mt19937_64 rng(test::test_seed());
    for (uint8_t& p : px) p = static_cast<uint8_t>(rng());
    ASSERT_NE(stbi_write_png(path("dog.png").c_str(), w, h, 3, px.data(), w * 3), 0);
    const auto r = strata(fmt::format("run {} --input '{}' --batch 3 --output '{}'", kNet, path("dog.png"),
                                      path("y.npy")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Tensor got = read_npy(path("y.npy"));
    ASSERT_EQ(shape_str(got.shape()), "[3,1000]");
    Tensor single = run_in_process(load_image(path("dog.png"), 224, 224));
    for (int64_t row = 0; row < 3; ++row) {
        Tensor got_row = Tensor::wrap(got.data<float>() + row * 1000, DType::f32, {1, 1000});
        EXPECT_LE(test::max_rel_error(got_row, single), 1e-5) << "row " << row;
    }
}

// A real exported model with its PyTorch input and logits: the command line end to end (README tolerance for fp32).
TEST_F(CliTest, RunOnnxFileMatchesPytorchLogits) {
    STRATA_REQUIRE_SHARED_PATH(model, "models/mobilenet_v2.onnx");
    STRATA_REQUIRE_SHARED_PATH(input, "models/mobilenet_v2.input.npy");
    STRATA_REQUIRE_SHARED_PATH(logits, "models/mobilenet_v2.logits.npy");
    const auto r = strata(fmt::format("run '{}' --input '{}' --output '{}' --top 3", model, input, path("y.npy")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Tensor got = read_npy(path("y.npy"));
    Tensor want = read_npy(logits);
    EXPECT_LE(test::max_rel_error(got, want), 1e-4);
    EXPECT_EQ(printed_top_k(r.output), top_k(want, 3)) << r.output;
}

// A model with static inputs that do not share a first axis (Gemm of [2,3] by [3,4]) runs at its own shapes, from
// .npy files given in input order and from random data.
TEST_F(CliTest, RunStaticTwoInputModelAtItsOwnShapes) {
    STRATA_REQUIRE_SHARED_PATH(dir, "conformance/pytorch-operator/test_operator_mm");
    write_npy(path("a.npy"), frontend::read_tensor_proto_file(dir + "/test_data_set_0/input_0.pb"));
    write_npy(path("b.npy"), frontend::read_tensor_proto_file(dir + "/test_data_set_0/input_1.pb"));
    const auto r = strata(fmt::format("run '{}/model.onnx' --input '{}' --input '{}' --output '{}'", dir, path("a.npy"),
                                      path("b.npy"), path("y.npy")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Tensor want = frontend::read_tensor_proto_file(dir + "/test_data_set_0/output_0.pb");
    EXPECT_LE(test::max_rel_error(read_npy(path("y.npy")), want), 1e-5);
    const auto random = strata(fmt::format("run '{}/model.onnx'", dir));
    EXPECT_EQ(random.exit_code, 0) << random.output;
    EXPECT_NE(random.output.find("[2,4]"), std::string::npos) << random.output;
}

// ------------------------------------------------------------------------------------------------------------------
// bench and inspect

TEST_F(CliTest, BenchJsonParsesAndIsConsistent) {
    const auto r = strata(fmt::format("bench {} --batch 1,2 --iters 3 --warmup 1 --json '{}'", kNet, path("b.json")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(path("b.json"));
    const nlohmann::json doc = nlohmann::json::parse(in);
    EXPECT_EQ(doc.at("model"), kNet);
    EXPECT_EQ(doc.at("device"), "cpu");
    ASSERT_EQ(doc.at("results").size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const auto& res = doc["results"][i];
        EXPECT_EQ(res.at("batch").get<int>(), static_cast<int>(i + 1));
        EXPECT_EQ(res.at("iters").get<int>(), 3);
        const double mn = res.at("min_ms"), med = res.at("median_ms"), p90 = res.at("p90_ms"), p99 = res.at("p99_ms");
        EXPECT_GT(mn, 0);
        EXPECT_LE(mn, med);
        EXPECT_LE(med, p90);
        EXPECT_LE(p90, p99);
        EXPECT_NEAR(res.at("images_per_s").get<double>(), (i + 1) / (med / 1000), 1e-6 * (i + 1) / (med / 1000));
    }
}

TEST_F(CliTest, InspectShowsEveryStepTotalsAndTheMemoryPlan) {
    const auto r = strata(fmt::format("inspect {} --batch 2", kNet));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("batch 2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Conv"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[2,1000]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("total:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("memory plan: arena"), std::string::npos) << r.output;
}

// ------------------------------------------------------------------------------------------------------------------
// User errors: one line each, naming the problem

TEST_F(CliTest, MissingModelFile) { expect_one_line_error("run '" + path("missing.onnx") + "'", "missing.onnx"); }

TEST_F(CliTest, UnknownZooName) { expect_one_line_error("run nosuchnet", "'nosuchnet' is neither"); }

TEST_F(CliTest, TruncatedOnnx) {
    STRATA_REQUIRE_SHARED_PATH(model, "models/squeezenet1_1.onnx");
    std::ifstream in(model, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(path("cut.onnx"), std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 3));
    out.close();
    expect_one_line_error("run '" + path("cut.onnx") + "'", "cut.onnx");
}

TEST_F(CliTest, RandomBytesAsOnnx) {
    std::mt19937_64 rng(test::test_seed());
    std::string bytes(4099, '\0');
    for (char& b : bytes) b = static_cast<char>(rng());
    std::ofstream(path("noise.onnx"), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    expect_one_line_error("run '" + path("noise.onnx") + "'", "noise.onnx");
}

TEST_F(CliTest, NpyWithBadHeader) {
    std::ofstream(path("bad.npy"), std::ios::binary) << std::string("\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'}\n", 26);
    expect_one_line_error(fmt::format("run {} --input '{}'", kNet, path("bad.npy")), path("bad.npy") + ": ");
}

TEST_F(CliTest, InputWithWrongShape) {
    write_npy(path("small.npy"), test::random_tensor(DType::f32, {1, 3, 100, 100}, test::test_seed()));
    expect_one_line_error(fmt::format("run {} --input '{}'", kNet, path("small.npy")),
                          "shape [1,3,100,100] does not fit input 'input', which is [N,3,224,224]");
}

TEST_F(CliTest, InputWithWrongDtype) {
    write_npy(path("ints.npy"), test::random_tensor(DType::i64, {1, 3, 224, 224}, test::test_seed(), 0, 255));
    expect_one_line_error(fmt::format("run {} --input '{}'", kNet, path("ints.npy")),
                          "dtype int64 does not match input 'input', which is float32");
}

TEST_F(CliTest, UnknownDevice) { expect_one_line_error(fmt::format("run {} --device tpu", kNet), "--device tpu"); }

TEST_F(CliTest, Fp16OnCpu) {
    expect_one_line_error(fmt::format("run {} --device cpu --precision fp16", kNet), "fp16");
}

TEST_F(CliTest, BatchThatContradictsTheNpy) {
    write_npy(path("x.npy"), test::random_tensor(DType::f32, {2, 3, 224, 224}, test::test_seed()));
    expect_one_line_error(fmt::format("run {} --input '{}' --batch 3", kNet, path("x.npy")),
                          "--batch 3 does not match the batch of");
}

TEST_F(CliTest, OutputNameWithoutNpyOrNpz) {
    expect_one_line_error(fmt::format("run {} --output out.txt", kNet), "--output out.txt");
}

TEST_F(CliTest, UsageErrorsExitTwoOnOneLine) {
    expect_one_line_error(fmt::format("run {} --top 0", kNet), "--top", 2);
    expect_one_line_error(fmt::format("bench {} --batch 1,x", kNet), "--batch", 2);
    expect_one_line_error(fmt::format("run {} --no-such-flag", kNet), "--no-such-flag", 2);
    expect_one_line_error("run", "MODEL", 2);
}

}  // namespace
}  // namespace strata

// test_plan_io.cpp: plan files round-trip exactly; damage of any kind (truncation at every byte, byte flips with and
// without a valid checksum, wrong magic, another format version) ends in a strata::Error, never a crash; a plan for
// another machine is described by target_mismatch.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "backends/reference/reference.h"
#include "build/byte_io.h"
#include "build/device_storage.h"
#include "build/memory_plan.h"
#include "build/plan_io.h"
#include "graph_io_test_util.h"
#include "plan_io_test_util.h"
#include "strata/engine.h"

namespace strata::build {
namespace {

void expect_same_plan(const PlanFile& a, const PlanFile& b) {
    EXPECT_EQ(a.target.device_kind, b.target.device_kind);
    EXPECT_EQ(a.target.gpu_name, b.target.gpu_name);
    EXPECT_EQ(a.target.cc, b.target.cc);
    EXPECT_EQ(a.target.driver, b.target.driver);
    EXPECT_EQ(a.target.runtime, b.target.runtime);
    EXPECT_EQ(a.target.precision, b.target.precision);
    EXPECT_EQ(a.target.batch, b.target.batch);
    EXPECT_EQ(a.target.strata_version, b.target.strata_version);
    EXPECT_TRUE(test::same_graph(a.graph, b.graph));
    ASSERT_EQ(a.steps.size(), b.steps.size());
    for (size_t i = 0; i < a.steps.size(); ++i) {
        EXPECT_EQ(a.steps[i].node, b.steps[i].node) << "step " << i;
        EXPECT_EQ(a.steps[i].tactic, b.steps[i].tactic) << "step " << i;
        EXPECT_EQ(a.steps[i].config, b.steps[i].config) << "step " << i;
    }
    ASSERT_EQ(a.values.size(), b.values.size());
    for (size_t i = 0; i < a.values.size(); ++i) {
        EXPECT_EQ(a.values[i].dtype, b.values[i].dtype) << "value " << i;
        EXPECT_EQ(a.values[i].layout, b.values[i].layout) << "value " << i;
        EXPECT_EQ(a.values[i].arena_offset, b.values[i].arena_offset) << "value " << i;
    }
    EXPECT_EQ(a.arena_bytes, b.arena_bytes);
    EXPECT_EQ(a.options, b.options);
}

// The small plan most tests damage: squeezenet's structure with one-element constants, CUDA target, varied steps.
const PlanFile& small_plan() {
    static const PlanFile plan = [] {
        PlanFile p = test::zoo_plan_file("squeezenet1_1", 2, true);
        p.target = test::h200_target();
        for (size_t i = 0; i < p.steps.size(); ++i) p.steps[i].config = static_cast<int32_t>(i % 5) - 1;
        return p;
    }();
    return plan;
}

// Runs `load` and expects strata::Error with `code` and `needle` in the message.
void expect_error(const std::vector<uint8_t>& bytes, StatusCode code, const std::string& needle) {
    try {
        load_plan_bytes(bytes.data(), bytes.size(), "bad.plan");
        ADD_FAILURE() << "loaded; expected an error containing '" << needle << "'";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), code) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

std::string temp_plan_path(const std::string& tag) {
    return (std::filesystem::temp_directory_path() / fmt::format("strata_{}_{}.plan", tag, test::test_seed())).string();
}

TEST(PlanIo, SmallPlanRoundTrips) {
    const std::vector<uint8_t> bytes = save_plan_bytes(small_plan());
    const PlanFile back = load_plan_bytes(bytes.data(), bytes.size(), "small.plan");
    expect_same_plan(small_plan(), back);
    EXPECT_EQ(save_plan_bytes(back), bytes);
}

TEST(PlanIo, ZooPlanRoundTripsThroughAFileAndRunsIdentically) {
    const PlanFile plan = test::zoo_plan_file("squeezenet1_1", 1, false);
    const std::string path = temp_plan_path("zoo");
    save_plan_file(plan, path);
    const PlanFile back = load_plan_file(path);
    std::remove(path.c_str());
    expect_same_plan(plan, back);
    const uint64_t seed = test::test_seed();
    const std::map<std::string, Tensor> feeds = {{"input", test::random_tensor(DType::f32, {1, 3, 224, 224}, seed)}};
    const auto want = backends::run_reference(plan.graph, feeds);
    const auto got = backends::run_reference(back.graph, feeds);
    ASSERT_EQ(got.count("logits"), 1u);
    EXPECT_TRUE(test::same_tensor(got.at("logits"), want.at("logits"))) << "seed " << seed;
}

// Issue 3, acceptance point 5 on the CPU: an Engine saved and loaded back gives bit-identical outputs.
TEST(PlanIo, EngineSavedAndLoadedGivesBitIdenticalOutputs) {
    BuildOptions options;
    options.batch = 2;
    options.threads = 1;
    Engine engine = Engine::build(Model::from_zoo("squeezenet1_1").value(), options).value();
    const std::string path = temp_plan_path("engine");
    const Status saved = engine.save(path);
    ASSERT_TRUE(saved.is_ok()) << saved.message();
    Expected<Engine> loaded = Engine::load(path);
    std::remove(path.c_str());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const uint64_t seed = test::test_seed();
    const TensorMap feeds = {{"input", test::random_tensor(DType::f32, {2, 3, 224, 224}, seed)}};
    const TensorMap want = engine.make_context().value().run(feeds).value();
    const TensorMap got = loaded->make_context().value().run(feeds).value();
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, t] : want) {
        ASSERT_EQ(got.count(name), 1u) << name;
        EXPECT_TRUE(test::same_tensor(got.at(name), t)) << name << " differs after save/load, seed " << seed;
    }
}

// The runtime refuses a plan whose target is not this machine, with target_mismatch's reason.
TEST(PlanIo, EngineLoadRefusesAnotherTarget) {
    PlanFile plan = test::zoo_plan_file("squeezenet1_1", 1, false);
    plan.target = test::h200_target();
    const std::string path = temp_plan_path("target");
    save_plan_file(plan, path);
    Expected<Engine> loaded = Engine::load(path);
    std::remove(path.c_str());
    ASSERT_FALSE(loaded.ok());
    EXPECT_NE(loaded.status().message().find("plan was built for NVIDIA H200 (sm_90"), std::string::npos)
        << loaded.status().message();
}

// GPU plans hold graphs rewritten by assign_device_storage (fp16, NHWC, Casts at the edges): such graphs must pass
// the verification that saving and loading apply, and round-trip with their per-value layouts and offsets.
TEST(PlanIo, DeviceStorageGraphsRoundTrip) {
    for (const std::string& name : zoo::names()) {
        BuildOptions options;
        options.threads = 1;
        const Plan built = build_plan(*zoo::build(name), options);
        PlanFile f;
        f.target = test::h200_target();
        f.graph = built.graph;
        const DeviceStorage storage = assign_device_storage(f.graph, DType::f16, Layout::nhwc);
        const MemoryPlan memory = plan_memory(f.graph);
        for (size_t i = 0; i < f.graph.nodes().size(); ++i)
            f.steps.push_back(
                {static_cast<uint32_t>(i), memory.aliased[i] ? "" : "cuda.test", static_cast<int32_t>(i % 3)});
        for (size_t v = 0; v < f.graph.num_values(); ++v)
            f.values.push_back({static_cast<uint8_t>(f.graph.value(static_cast<ir::ValueId>(v)).dtype),
                                static_cast<uint8_t>(storage.layouts.at(v)), memory.offsets.at(v)});
        f.arena_bytes = memory.arena_bytes;
        std::vector<uint8_t> bytes;
        try {
            bytes = save_plan_bytes(f);
        } catch (const Error& e) {
            FAIL() << name << ": " << e.what();
        }
        const PlanFile back = load_plan_bytes(bytes.data(), bytes.size(), name + ".plan");
        expect_same_plan(f, back);
    }
}

TEST(PlanIo, MissingFileOrDirectoryIsNotFound) {
    const std::string dir = std::filesystem::temp_directory_path().string();
    for (const std::string& path : {std::string("/nonexistent/dir/x.plan"), dir}) {
        try {
            load_plan_file(path);
            ADD_FAILURE() << path << " loaded";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), StatusCode::not_found) << e.what();
        }
    }
}

TEST(PlanIo, EveryTruncationIsRefused) {
    const std::vector<uint8_t> bytes = save_plan_bytes(small_plan());
    for (size_t n = 0; n < bytes.size(); ++n) {
        std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_THROW(load_plan_bytes(cut.data(), cut.size(), "cut.plan"), Error) << "prefix of " << n << " bytes";
        // Resealed, the prefix passes the checksum and reaches the parser, which must refuse it too.
        reseal_plan_bytes(cut);
        try {
            load_plan_bytes(cut.data(), cut.size(), "cut.plan");
            ADD_FAILURE() << "resealed prefix of " << n << " of " << bytes.size() << " bytes loaded";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), kCorruptPlanCode) << "prefix of " << n << ": " << e.what();
        }
    }
}

TEST(PlanIo, EveryByteFlipIsCaught) {
    const uint64_t seed = test::test_seed();
    std::mt19937_64 rng(seed);
    const std::vector<uint8_t> bytes = save_plan_bytes(small_plan());
    for (size_t at = 0; at < bytes.size(); ++at) {
        std::vector<uint8_t> bad = bytes;
        bad[at] ^= static_cast<uint8_t>(1 + rng() % 255);
        EXPECT_THROW(load_plan_bytes(bad.data(), bad.size(), "flip.plan"), Error) << "byte " << at << " seed " << seed;
    }
}

// Flips behind a valid checksum reach the parser: each load succeeds or throws strata::Error, never anything else.
TEST(PlanIo, ResealedRandomDamageLoadsOrThrows) {
    const uint64_t seed = test::test_seed();
    std::mt19937_64 rng(seed);
    const std::vector<uint8_t> bytes = save_plan_bytes(small_plan());
    int loaded = 0, refused = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::vector<uint8_t> bad = bytes;
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < flips; ++i) bad[30 + rng() % (bad.size() - 30)] = static_cast<uint8_t>(rng());
        reseal_plan_bytes(bad);
        try {
            load_plan_bytes(bad.data(), bad.size(), "fuzz.plan");
            ++loaded;
        } catch (const Error& e) {
            EXPECT_NE(e.code(), StatusCode::internal) << "trial " << trial << " seed " << seed << ": " << e.what();
            ++refused;
        }
    }
    EXPECT_GT(refused, 0);
    std::printf("resealed damage: %d loaded, %d refused\n", loaded, refused);
}

TEST(PlanIo, HeaderDamageHasClearMessages) {
    const std::vector<uint8_t> good = save_plan_bytes(small_plan());
    std::vector<uint8_t> bad = good;
    bad[0] = 'X';
    expect_error(bad, kCorruptPlanCode, "bad.plan: corrupt plan: not a strata plan");
    expect_error({'S', 'T', 'R'}, kCorruptPlanCode, "truncated");
    expect_error({}, kCorruptPlanCode, "truncated");

    bad = good;
    bad[10] = static_cast<uint8_t>(kPlanFormatVersion + 1);
    expect_error(bad, StatusCode::unsupported, "is newer than this strata reads");
    bad[10] = 0;
    expect_error(bad, kCorruptPlanCode, "unknown plan format version 0");

    bad = good;
    bad.push_back(0);
    expect_error(bad, kCorruptPlanCode, "truncated or padded");
    bad = good;
    bad.back() ^= 1;
    expect_error(bad, kCorruptPlanCode, "checksum mismatch");
}

TEST(PlanIo, SaveRefusesInconsistentPlans) {
    auto expect_refused = [](PlanFile p, const std::string& needle) {
        try {
            save_plan_bytes(p);
            ADD_FAILURE() << "saved; expected '" << needle << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), StatusCode::invalid_argument) << e.what();
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    PlanFile p = small_plan();
    p.values.pop_back();
    expect_refused(p, "value storage entries for");
    p = small_plan();
    p.steps[0].node = static_cast<uint32_t>(p.graph.nodes().size());
    expect_refused(p, "step 0 runs node");
    p = small_plan();
    p.arena_bytes = 1;
    expect_refused(p, "does not fit the 1-byte arena");
    p = small_plan();
    p.values[0].layout = 9;
    expect_refused(p, "layout 9");
}

TEST(PlanIo, TargetMismatchExplainsWhy) {
    const PlanFileTarget plan = test::h200_target();
    EXPECT_EQ(target_mismatch(plan, plan), "");
    PlanFileTarget here = plan;
    here.driver = 13010;  // a newer driver runs older plans
    EXPECT_EQ(target_mismatch(plan, here), "");
    here.precision = "fp32";  // describes the plan, not the machine
    here.batch = 1;
    EXPECT_EQ(target_mismatch(plan, here), "");

    here = plan;
    here.gpu_name = "NVIDIA A100-SXM4-80GB";
    here.cc = 80;
    here.driver = 12080;
    EXPECT_EQ(target_mismatch(plan, here),
              "plan was built for NVIDIA H200 (sm_90, driver 13.0, runtime 13.0) by strata 0.1.0; this machine has "
              "NVIDIA A100-SXM4-80GB (sm_80, driver 12.8, runtime 13.0) and strata 0.1.0: the GPU differs, the "
              "driver is older");
    here = plan;
    here.strata_version = "0.2.0";
    EXPECT_NE(target_mismatch(plan, here).find("the strata version differs"), std::string::npos);
    here = plan;
    here.runtime = 12090;
    EXPECT_NE(target_mismatch(plan, here).find("the CUDA runtime differs"), std::string::npos);
    EXPECT_NE(target_mismatch(plan, test::cpu_target()).find("this machine has cpu"), std::string::npos);
}

}  // namespace
}  // namespace strata::build

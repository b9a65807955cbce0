// test_engine_save_load.cpp: Engine::save / Engine::load on the CPU: a reloaded plan runs without rebuilding and
// gives bit-identical outputs; bad plan paths and damaged files are clear errors. (tests/gpu does the same on CUDA.)
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "strata/engine.h"
#include "test_support.h"

namespace strata {
namespace {

using test::same_bits;
using test::temp_path;

TEST(EngineSaveLoad, ReloadedCpuPlanGivesIdenticalOutputs) {
    auto model = Model::from_zoo("squeezenet1_1");
    ASSERT_TRUE(model.ok());
    auto engine = Engine::build(*model, {.device = Device::cpu(), .batch = 2});
    ASSERT_TRUE(engine.ok()) << engine.status().message();
    std::string path = temp_path("squeezenet.plan");
    Status saved = engine->save(path);
    ASSERT_TRUE(saved.ok()) << saved.message();
    auto loaded = Engine::load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    EXPECT_EQ(loaded->describe(), engine->describe());
    TensorMap in{{"input", test::random_tensor(DType::f32, {2, 3, 224, 224}, test::test_seed())}};
    auto a = engine->make_context()->run(in);
    auto b = loaded->make_context()->run(in);
    ASSERT_TRUE(a.ok() && b.ok());
    for (const auto& [name, t] : *a) EXPECT_TRUE(same_bits(t, b->at(name))) << name;
}

TEST(EngineSaveLoad, MissingAndDamagedPlansAreClearErrors) {
    auto missing = Engine::load(temp_path("nope.plan"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().code(), StatusCode::not_found) << missing.status().message();

    std::string path = temp_path("damaged.plan");
    auto model = Model::from_zoo("squeezenet1_1");
    auto engine = Engine::build(*model, {.device = Device::cpu(), .batch = 1});
    ASSERT_TRUE(engine.ok() && engine->save(path).ok());
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(path) / 2));
        char byte = 0x5a;
        f.write(&byte, 1);
    }
    auto damaged = Engine::load(path);
    ASSERT_FALSE(damaged.ok());
    EXPECT_NE(damaged.status().message().find("corrupt plan"), std::string::npos) << damaged.status().message();
}

}  // namespace
}  // namespace strata

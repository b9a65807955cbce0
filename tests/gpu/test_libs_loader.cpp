// test_libs_loader.cpp: the run-time loaders of cuDNN and cuBLASLt. They need no GPU: opening the libraries and
// finding their functions is host work, so these run everywhere and print what was searched.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backends/cuda/libs/cublaslt_loader.h"
#include "backends/cuda/libs/cudnn_loader.h"
#include "backends/cuda/libs/lib_loader.h"

namespace strata::test {
namespace {

TEST(LibsLoader, CudnnReportsWhatItFoundOrSearched) {
    const std::string& report = cuda::libs::cudnn_report();
    std::printf("%s\n", report.c_str());
    if (cuda::libs::cudnn_api()) {
        EXPECT_EQ(report.rfind("cuDNN 9.", 0), 0u) << report;
        EXPECT_TRUE(cuda::libs::cudnn_unavailable().empty());
        EXPECT_EQ(cuda::libs::cudnn_api()->version / 10000, 9u);
    } else {
        EXPECT_EQ(report.rfind("cuDNN not found (searched: libcudnn.so.9", 0), 0u) << report;
        EXPECT_EQ(cuda::libs::cudnn_unavailable(), report);
    }
}

TEST(LibsLoader, CublasLtReportsWhatItFoundOrSearched) {
    const std::string& report = cuda::libs::cublaslt_report();
    std::printf("%s\n", report.c_str());
    if (cuda::libs::cublaslt_api()) {
        EXPECT_EQ(report.rfind("cuBLASLt 13.", 0), 0u) << report;
        EXPECT_TRUE(cuda::libs::cublaslt_unavailable().empty());
    } else {
        EXPECT_EQ(report.rfind("cuBLASLt not found (searched: libcublasLt.so.13", 0), 0u) << report;
        EXPECT_EQ(cuda::libs::cublaslt_unavailable(), report);
    }
}

TEST(LibsLoader, MissingLibraryListsEveryPlaceTried) {
    unsetenv("STRATA_TEST_ABSENT_LIB");
    auto lib = cuda::libs::open_library("libstrata_absent.so.1", "STRATA_TEST_ABSENT_LIB", {"/nonexistent/lib"});
    EXPECT_FALSE(lib.found());
    ASSERT_EQ(lib.searched.size(), 3u) << lib.searched_list();
    EXPECT_EQ(lib.searched[0].rfind("libstrata_absent.so.1 (", 0), 0u) << lib.searched[0];
    EXPECT_EQ(lib.searched[1], "$STRATA_TEST_ABSENT_LIB (unset)");
    EXPECT_EQ(lib.searched[2], "/nonexistent/lib/libstrata_absent.so.1 (absent)");
}

TEST(LibsLoader, EnvironmentVariableNamesTheFile) {
    // Any shared library will do to prove the variable is honoured: libz is on every Linux the project targets.
    std::string path;
    for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"})
        if (std::filesystem::exists(std::string(dir) + "/libz.so.1")) path = std::string(dir) + "/libz.so.1";
    if (path.empty()) GTEST_SKIP() << "no libz.so.1 to load";
    setenv("STRATA_TEST_SOME_LIB", path.c_str(), 1);
    auto lib = cuda::libs::open_library("libstrata_absent.so.1", "STRATA_TEST_SOME_LIB", {"/nonexistent/lib"});
    unsetenv("STRATA_TEST_SOME_LIB");
    EXPECT_TRUE(lib.found()) << lib.searched_list();
    EXPECT_EQ(lib.path, path);
    EXPECT_NE(cuda::libs::find_symbol(lib, "zlibVersion"), nullptr);
}

}  // namespace
}  // namespace strata::test

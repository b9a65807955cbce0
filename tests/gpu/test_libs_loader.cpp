// test_libs_loader.cpp: the run-time loaders of cuDNN and cuBLASLt. They need no GPU: opening the libraries and
// finding their functions is host work, so these run everywhere and print what was searched.
#include <gtest/gtest.h>

#include "backends/cuda/libs/cublaslt_loader.h"
#include "backends/cuda/libs/cudnn_loader.h"

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

}  // namespace
}  // namespace strata::test

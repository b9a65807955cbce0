// test_device.cpp: device discovery, buffers and host packing (the layer every CUDA kernel test stands on).
#include <gtest/gtest.h>

#include "backends/cuda/device.h"
#include "backends/cuda/host_pack.h"
#include "gpu_support.h"
#include "test_support.h"

namespace strata::test {
namespace {

TEST(GpuDevice, ReportsPropertiesOfDeviceZero) {
    STRATA_REQUIRE_GPU();
    const auto& info = cuda::device_info(0);
    EXPECT_GT(info.sm_count, 0);
    EXPECT_GE(info.compute_capability(), 70);
    EXPECT_FALSE(info.name.empty());
}

TEST(GpuDevice, MissingDeviceIsAClearError) {
    STRATA_REQUIRE_GPU();
    try {
        cuda::device_info(cuda::device_count() + 3);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    }
}

// Host packing needs no GPU: it is what uploads weights, so it is checked everywhere.
TEST(HostPack, NhwcRoundTripKeepsEveryElement) {
    Tensor t = random_tensor(DType::f32, {2, 3, 4, 5}, test_seed());
    cuda::TensorDesc desc{DType::f32, Layout::nhwc, t.shape()};
    auto bytes = cuda::pack_host(t, desc);
    const float* src = static_cast<const float*>(t.raw());
    const float* packed = reinterpret_cast<const float*>(bytes.data());
    // element (n=1, c=2, h=3, w=4) sits at ((1*4 + 3)*5 + 4)*3 + 2 in NHWC
    EXPECT_EQ(packed[((1 * 4 + 3) * 5 + 4) * 3 + 2], src[((1 * 3 + 2) * 4 + 3) * 5 + 4]);
    Tensor back = cuda::unpack_host(bytes.data(), desc);
    EXPECT_EQ(max_rel_error(back, t), 0.0);
}

TEST(HostPack, HalfRoundTripIsWithinHalfPrecision) {
    Tensor t = random_tensor(DType::f32, {7, 9}, test_seed());
    for (DType dt : {DType::f16, DType::bf16}) {
        cuda::TensorDesc desc{dt, Layout::rowmajor, t.shape()};
        auto bytes = cuda::pack_host(t, desc);
        EXPECT_LT(max_rel_error(cuda::unpack_host(bytes.data(), desc), t), dt == DType::f16 ? 1e-3 : 8e-3);
    }
}

TEST(GpuDevice, UploadDownloadRoundTrip) {
    STRATA_REQUIRE_GPU();
    Tensor t = random_tensor(DType::f32, {3, 5, 7, 2}, test_seed());
    DeviceTensor d = to_device(t, {DType::f32, Layout::nhwc, t.shape()});
    EXPECT_EQ(max_rel_error(from_device(d), t), 0.0);
}

}  // namespace
}  // namespace strata::test

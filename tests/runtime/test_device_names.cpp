// test_device_names.cpp: Device and Precision to and from text, and the version string.
#include <gtest/gtest.h>

#include "strata/engine.h"

namespace strata {
namespace {

TEST(DeviceNames, ParsesCpuAndCudaWithIndex) {
    EXPECT_EQ(Device::parse("cpu").value().kind, Device::Kind::cpu);
    Device c = Device::parse("cuda").value();
    EXPECT_EQ(c.kind, Device::Kind::cuda);
    EXPECT_EQ(c.index, 0);
    EXPECT_EQ(Device::parse("cuda:3").value().index, 3);
    EXPECT_EQ(Device::parse("cuda:3").value().str(), "cuda:3");
    EXPECT_EQ(Device::cpu().str(), "cpu");
    EXPECT_EQ(Device::cuda().str(), "cuda:0");
}

TEST(DeviceNames, RefusesMalformedDevices) {
    for (const char* bad : {"", "gpu", "CPU", "cuda:", "cuda:-1", "cuda:1x", "cuda:x", "cuda1", " cpu"}) {
        auto d = Device::parse(bad);
        EXPECT_FALSE(d.ok()) << bad;
        EXPECT_EQ(d.status().code(), StatusCode::invalid_argument) << bad;
        EXPECT_NE(d.status().message().find("expected cpu, cuda or cuda:N"), std::string::npos) << bad;
    }
}

TEST(DeviceNames, PrecisionRoundTrips) {
    for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::int8})
        EXPECT_EQ(parse_precision(precision_name(p)).value(), p) << precision_name(p);
    EXPECT_STREQ(precision_name(Precision::bf16), "bf16");
    for (const char* bad : {"", "fp64", "FP32", "half"}) {
        auto p = parse_precision(bad);
        EXPECT_EQ(p.status().code(), StatusCode::invalid_argument) << bad;
        EXPECT_NE(p.status().message().find(bad), std::string::npos);
    }
}

TEST(DeviceNames, Version) { EXPECT_STREQ(version(), "0.1.0"); }

}  // namespace
}  // namespace strata

// resnet.cpp: torchvision's resnet50 (25,557,032 parameters): a 7x7 stem, four stages of bottleneck blocks
// (1x1, 3x3 with the stride (ResNet v1.5), 1x1 expanding 4x; a 1x1 projection on the first block of a stage),
// global average pooling and a linear classifier.
#include "zoo/zoo_layers.h"

namespace strata::zoo {
namespace {

constexpr int64_t kExpansion = 4;

ir::ValueId conv_bn(NetBuilder& nb, ir::ValueId x, int64_t in, int64_t out, int64_t kernel, int64_t stride,
                    const std::string& conv_name, const std::string& bn_name) {
    x = nb.conv(x, in, out, kernel, stride, (kernel - 1) / 2, 1, false, conv_name);
    return nb.batch_norm(x, out, bn_name);
}

ir::ValueId bottleneck(NetBuilder& nb, ir::ValueId x, int64_t in, int64_t planes, int64_t stride,
                       const std::string& name) {
    ir::Builder& b = nb.builder();
    int64_t out = planes * kExpansion;
    ir::ValueId y = b.unary(ir::UnaryKind::Relu, conv_bn(nb, x, in, planes, 1, 1, name + ".conv1", name + ".bn1"), 0,
                            0, name + ".relu1");
    y = b.unary(ir::UnaryKind::Relu, conv_bn(nb, y, planes, planes, 3, stride, name + ".conv2", name + ".bn2"), 0, 0,
                name + ".relu2");
    y = conv_bn(nb, y, planes, out, 1, 1, name + ".conv3", name + ".bn3");
    ir::ValueId identity = x;
    if (stride != 1 || in != out)
        identity = conv_bn(nb, x, in, out, 1, stride, name + ".downsample.0", name + ".downsample.1");
    return b.unary(ir::UnaryKind::Relu, b.add(y, identity), 0, 0, name + ".relu");
}

}  // namespace

std::shared_ptr<ir::Graph> build_resnet50() {
    static const int64_t kBlocks[] = {3, 4, 6, 3};
    NetBuilder nb("resnet50", 0x7e5e7050ULL);
    ir::Builder& b = nb.builder();
    ir::ValueId x = conv_bn(nb, nb.image_input(), 3, 64, 7, 2, "conv1", "bn1");
    x = b.unary(ir::UnaryKind::Relu, x, 0, 0, "relu");
    x = b.max_pool(x, ir::pool2d_attrs(3, 2, 1), "maxpool");
    int64_t in = 64;
    for (int stage = 0; stage < 4; ++stage) {
        int64_t planes = int64_t{64} << stage;
        for (int64_t i = 0; i < kBlocks[stage]; ++i) {
            std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
            x = bottleneck(nb, x, in, planes, i == 0 && stage > 0 ? 2 : 1, name);
            in = planes * kExpansion;
        }
    }
    x = b.flatten(b.global_avg_pool(x, "avgpool"), 1, "flatten");
    return nb.finish(nb.linear(x, in, 1000, "fc"));
}

}  // namespace strata::zoo

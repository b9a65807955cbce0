// mobilenet_v2.cpp: torchvision's mobilenet_v2 (3,504,872 parameters): inverted residual blocks (1x1 expand,
// 3x3 depthwise, 1x1 linear projection, each with BatchNorm; ReLU6 after the first two; a residual add when the
// block keeps its size), then a 1x1 conv to 1280 channels, global average pooling and a linear classifier.
#include "zoo/zoo_layers.h"

namespace strata::zoo {
namespace {

// torchvision's Conv2dNormActivation: conv (no bias), BatchNorm, ReLU6, named <name>.0, .1, .2.
ir::ValueId conv_bn_relu6(NetBuilder& nb, ir::ValueId x, int64_t in, int64_t out, int64_t kernel, int64_t stride,
                          int64_t group, const std::string& name) {
    x = nb.conv(x, in, out, kernel, stride, (kernel - 1) / 2, group, false, name + ".0");
    x = nb.batch_norm(x, out, name + ".1");
    return nb.builder().unary(ir::UnaryKind::Relu6, x, 0, 0, name + ".2");
}

ir::ValueId inverted_residual(NetBuilder& nb, ir::ValueId x, int64_t in, int64_t out, int64_t stride, int64_t expand,
                              const std::string& name) {
    int64_t hidden = in * expand;
    std::string conv = name + ".conv";
    int layer = 0;
    ir::ValueId y = x;
    if (expand != 1) y = conv_bn_relu6(nb, y, in, hidden, 1, 1, 1, conv + "." + std::to_string(layer++));
    y = conv_bn_relu6(nb, y, hidden, hidden, 3, stride, hidden, conv + "." + std::to_string(layer++));
    y = nb.conv(y, hidden, out, 1, 1, 0, 1, false, conv + "." + std::to_string(layer++));
    y = nb.batch_norm(y, out, conv + "." + std::to_string(layer++));
    if (stride == 1 && in == out) y = nb.builder().binary(ir::BinaryKind::Add, x, y, name + ".add");
    return y;
}

struct StageSetting {
    int64_t expand, channels, repeats, stride;
};

}  // namespace

std::shared_ptr<ir::Graph> build_mobilenet_v2() {
    static const StageSetting kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                           {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    NetBuilder nb("mobilenet_v2", 0x0b11e7e2ULL);
    ir::Builder& b = nb.builder();
    ir::ValueId x = conv_bn_relu6(nb, nb.image_input(), 3, 32, 3, 2, 1, "features.0");
    int64_t in = 32;
    int feature = 1;
    for (const StageSetting& s : kStages) {
        for (int64_t i = 0; i < s.repeats; ++i) {
            x = inverted_residual(nb, x, in, s.channels, i == 0 ? s.stride : 1, s.expand,
                                  "features." + std::to_string(feature++));
            in = s.channels;
        }
    }
    x = conv_bn_relu6(nb, x, in, 1280, 1, 1, 1, "features." + std::to_string(feature));
    x = b.flatten(b.global_avg_pool(x, "avgpool"), 1, "flatten");
    x = b.op(ir::OpKind::Dropout, {x}, ir::NoAttrs{}, "classifier.0");  // the identity in inference
    return nb.finish(nb.linear(x, 1280, 1000, "classifier.1"));
}

}  // namespace strata::zoo

// squeezenet.cpp: torchvision's squeezenet1_1 (1,235,496 parameters): Fire modules (squeeze 1x1, then expand 1x1
// and 3x3 concatenated), ceil-mode max pools, a 1x1 conv classifier and a global average pool.
#include "zoo/zoo_layers.h"

namespace strata::zoo {
namespace {

ir::ValueId fire(NetBuilder& nb, ir::ValueId x, int64_t in, int64_t squeeze, int64_t expand, const std::string& name) {
    ir::Builder& b = nb.builder();
    ir::ValueId s = b.unary(ir::UnaryKind::Relu, nb.conv(x, in, squeeze, 1, 1, 0, 1, true, name + ".squeeze"), 0, 0,
                            name + ".squeeze_activation");
    ir::ValueId e1 = b.unary(ir::UnaryKind::Relu, nb.conv(s, squeeze, expand, 1, 1, 0, 1, true, name + ".expand1x1"),
                             0, 0, name + ".expand1x1_activation");
    ir::ValueId e3 = b.unary(ir::UnaryKind::Relu, nb.conv(s, squeeze, expand, 3, 1, 1, 1, true, name + ".expand3x3"),
                             0, 0, name + ".expand3x3_activation");
    return b.concat({e1, e3}, 1, name + ".cat");
}

}  // namespace

std::shared_ptr<ir::Graph> build_squeezenet1_1() {
    NetBuilder nb("squeezenet1_1", 0x5e11e7a11ULL);
    ir::Builder& b = nb.builder();
    ir::ValueId x = nb.image_input();
    x = b.unary(ir::UnaryKind::Relu, nb.conv(x, 3, 64, 3, 2, 0, 1, true, "features.0"), 0, 0, "features.1");
    x = b.max_pool(x, ir::pool2d_attrs(3, 2, 0, true), "features.2");
    x = fire(nb, x, 64, 16, 64, "features.3");
    x = fire(nb, x, 128, 16, 64, "features.4");
    x = b.max_pool(x, ir::pool2d_attrs(3, 2, 0, true), "features.5");
    x = fire(nb, x, 128, 32, 128, "features.6");
    x = fire(nb, x, 256, 32, 128, "features.7");
    x = b.max_pool(x, ir::pool2d_attrs(3, 2, 0, true), "features.8");
    x = fire(nb, x, 256, 48, 192, "features.9");
    x = fire(nb, x, 384, 48, 192, "features.10");
    x = fire(nb, x, 384, 64, 256, "features.11");
    x = fire(nb, x, 512, 64, 256, "features.12");
    x = b.op(ir::OpKind::Dropout, {x}, ir::NoAttrs{}, "classifier.0");  // the identity in inference
    x = b.unary(ir::UnaryKind::Relu, nb.conv(x, 512, 1000, 1, 1, 0, 1, true, "classifier.1"), 0, 0, "classifier.2");
    x = b.global_avg_pool(x, "classifier.3");
    return nb.finish(b.flatten(x, 1, "flatten"));
}

}  // namespace strata::zoo

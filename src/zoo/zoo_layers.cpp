// zoo_layers.cpp: the weight generator and the parameterised layers the built-in networks are written with.
#include "zoo/zoo_layers.h"

#include <cmath>

namespace strata::zoo {

uint64_t WeightRng::next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double WeightRng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }

NetBuilder::NetBuilder(const std::string& name, uint64_t seed) : b_(name), rng_(seed) {}

ir::ValueId NetBuilder::image_input() { return b_.input("input", DType::f32, {-1, 3, 224, 224}); }

Tensor NetBuilder::uniform(const Shape& shape, double center, double spread) {
    Tensor t = Tensor::empty(DType::f32, shape);
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(center + spread * rng_.uniform());
    return t;
}

// He scaling: uniform on [-a, a] has std a / sqrt(3), so a = sqrt(6 / fan_in) gives std sqrt(2 / fan_in).
static double he_bound(int64_t fan_in) { return std::sqrt(6.0 / static_cast<double>(fan_in)); }

ir::ValueId NetBuilder::conv(ir::ValueId x, int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                             int64_t group, bool bias, const std::string& name) {
    int64_t fan_in = in / group * kernel * kernel;
    Tensor w = uniform({out, in / group, kernel, kernel}, 0.0, he_bound(fan_in));
    std::optional<Tensor> b;
    if (bias) b = uniform({out}, 0.0, 0.01);
    return b_.conv(x, std::move(w), std::move(b), ir::conv2d_attrs(kernel, stride, pad, group), name);
}

ir::ValueId NetBuilder::batch_norm(ir::ValueId x, int64_t channels, const std::string& name) {
    Tensor scale = uniform({channels}, 1.0, 0.1);
    Tensor bias = uniform({channels}, 0.0, 0.05);
    Tensor mean = uniform({channels}, 0.0, 0.05);
    Tensor var = uniform({channels}, 1.0, 0.1);
    return b_.batch_norm(x, scale, bias, mean, var, 1e-5f, name);
}

ir::ValueId NetBuilder::linear(ir::ValueId x, int64_t in, int64_t out, const std::string& name) {
    // Not He-scaled: the logits follow no ReLU, so a variance-preserving 1/fan_in keeps them moderate.
    Tensor w = uniform({out, in}, 0.0, std::sqrt(3.0 / static_cast<double>(in)));
    return b_.linear(x, std::move(w), uniform({out}, 0.0, 0.01), name);
}

std::shared_ptr<ir::Graph> NetBuilder::finish(ir::ValueId logits) {
    b_.output(logits, "logits");
    return b_.finish();
}

}  // namespace strata::zoo

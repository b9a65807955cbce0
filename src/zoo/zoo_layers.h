// zoo_layers.h: what the built-in networks share: a platform-independent PRNG for their weights and the layers
// (conv, BatchNorm, linear) with torchvision's parameter names and He-scaled initialisation.
#pragma once

#include <cstdint>
#include <string>

#include "ir/builder.h"

namespace strata::zoo {

/// splitmix64: the same sequence on every platform and compiler, unlike the std distributions.
class WeightRng {
public:
    explicit WeightRng(uint64_t seed) : state_(seed) {}
    uint64_t next();
    /// Uniform in [-1, 1), from the top 53 bits.
    double uniform();

private:
    uint64_t state_;
};

/// A Builder plus the weight generator: each layer draws its weights in the order it is added.
class NetBuilder {
public:
    NetBuilder(const std::string& name, uint64_t seed);

    ir::Builder& builder() { return b_; }
    /// The network input "input" [-1, 3, 224, 224] f32.
    ir::ValueId image_input();
    /// Conv2d with He-uniform weights (std = sqrt(2 / fan_in)); `name` is the torchvision module path.
    ir::ValueId conv(ir::ValueId x, int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                     int64_t group, bool bias, const std::string& name);
    /// BatchNorm2d in inference form: scale ~1, small bias and mean, running_var ~1.
    ir::ValueId batch_norm(ir::ValueId x, int64_t channels, const std::string& name);
    /// nn.Linear: weight [out, in], bias [out].
    ir::ValueId linear(ir::ValueId x, int64_t in, int64_t out, const std::string& name);
    /// Names the final value "logits" and returns the graph.
    std::shared_ptr<ir::Graph> finish(ir::ValueId logits);

private:
    Tensor uniform(const Shape& shape, double center, double spread);
    ir::Builder b_;
    WeightRng rng_;
};

std::shared_ptr<ir::Graph> build_squeezenet1_1();
std::shared_ptr<ir::Graph> build_mobilenet_v2();
std::shared_ptr<ir::Graph> build_resnet50();

}  // namespace strata::zoo

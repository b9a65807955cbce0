// unary.h: the one definition of every elementwise function of one input (ir::UnaryKind). The reference Unary
// kernel, the fused activations of Conv and FullyConnected, and other backends' epilogues all call it, so a
// function's meaning (Selu's constants, HardSwish's knee, Clip's open ends) is written down exactly once.
#pragma once

#include "ir/attrs.h"

namespace strata::backends::reference {

/// f(x) for the kind in `attrs`, computed in double and rounded once to float.
float apply_unary(const ir::UnaryAttrs& attrs, float x);

}  // namespace strata::backends::reference

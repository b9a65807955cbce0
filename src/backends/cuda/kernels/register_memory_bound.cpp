// register_memory_bound.cpp: the memory-bound families' tactics (elementwise, pooling, softmax, data movement,
// reduce, normalisation), each family registering from its own folder.
#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

void register_elementwise_tactics(CudaTacticRegistry& registry);  // elementwise/: unary, binary, cast
void register_binary_int_tactics(CudaTacticRegistry& registry);   // elementwise/: Binary on int32/int64
void register_pool_tactics(CudaTacticRegistry& registry);         // pool/
void register_softmax_tactics(CudaTacticRegistry& registry);      // softmax/
void register_data_copy_tactics(CudaTacticRegistry& registry);    // data/: concat, split, plain copies
void register_data_map_tactics(CudaTacticRegistry& registry);     // data/: slice, transpose, pad, tile, ...
void register_reduce_tactics(CudaTacticRegistry& registry);       // reduce/
void register_norm_tactics(CudaTacticRegistry& registry);         // norm/: batchnorm, instancenorm

void register_memory_bound_tactics(CudaTacticRegistry& registry) {
    register_elementwise_tactics(registry);
    register_binary_int_tactics(registry);
    register_pool_tactics(registry);
    register_softmax_tactics(registry);
    register_data_copy_tactics(registry);
    register_data_map_tactics(registry);
    register_reduce_tactics(registry);
    register_norm_tactics(registry);
}

}  // namespace strata::cuda

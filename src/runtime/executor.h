// executor.h: runs a Plan on the CPU. One per Context: it owns the activation arena, a Tensor per value (views into
// the arena, the Plan's constants, the caller's inputs) and the worker threads; it never re-plans.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "build/plan.h"
#include "core/thread_pool.h"
#include "runtime/runner.h"
#include "strata/tensor.h"

namespace strata::runtime {

class Executor final : public Runner {
public:
    explicit Executor(std::shared_ptr<const build::Plan> plan);

    /// Runs every step. `inputs` must hold each graph input with its planned dtype and shape (checked by the
    /// caller: see check_inputs). Returns the graph outputs as fresh tensors, by name.
    std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs) override;

private:
    void run_step(const build::Step& step);

    std::shared_ptr<const build::Plan> plan_;
    Tensor arena_;
    std::vector<Tensor> values_;  // per ValueId
    std::unique_ptr<ThreadPool> pool_;
};

}  // namespace strata::runtime

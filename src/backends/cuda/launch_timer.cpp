// launch_timer.cpp: see launch_timer.h.
#include "backends/cuda/launch_timer.h"

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_buffer.h"

namespace strata::cuda {

namespace {

// The instantiated graph, destroyed on every path out.
class GraphExec {
public:
    GraphExec(const EnqueueFn& enqueue, cudaStream_t stream, int launches, const std::string& what) {
        cudaGraph_t graph = nullptr;
        STRATA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), what);
        try {
            for (int i = 0; i < launches; ++i) enqueue(i, stream);
        } catch (...) {
            // Leave the stream usable for the caller's next attempt (a benchmark goes on to the next candidate).
            cudaGraph_t partial = nullptr;
            cudaStreamEndCapture(stream, &partial);
            if (partial) cudaGraphDestroy(partial);
            cudaGetLastError();
            throw;
        }
        cudaError_t status = cudaStreamEndCapture(stream, &graph);
        check_launch(what);
        STRATA_CUDA_CHECK(status, what);
        status = cudaGraphInstantiate(&exec_, graph, 0);
        cudaGraphDestroy(graph);
        STRATA_CUDA_CHECK(status, what);
    }
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;
    ~GraphExec() {
        if (exec_) cudaGraphExecDestroy(exec_);
    }
    void replay(cudaStream_t stream, const std::string& what) { STRATA_CUDA_CHECK(cudaGraphLaunch(exec_, stream), what); }

private:
    cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

std::vector<double> graph_enqueue_times(const EnqueueFn& enqueue, cudaStream_t stream, int launches, int replays,
                                        const std::string& what) {
    GraphExec graph(enqueue, stream, launches, what);
    graph.replay(stream, what);
    Event start, end;
    std::vector<double> ms;
    for (int r = 0; r < replays; ++r) {
        start.record(stream);
        graph.replay(stream, what);
        end.record(stream);
        STRATA_CUDA_CHECK(cudaStreamSynchronize(stream), what);
        ms.push_back(static_cast<double>(end.elapsed_since(start)) / launches);
    }
    return ms;
}

std::vector<double> graph_launch_times(CudaKernel& kernel, const StepBuffers& buffers, cudaStream_t stream,
                                       int launches, int replays, const std::string& what) {
    return graph_enqueue_times([&](int, cudaStream_t s) { kernel.launch(buffers, s); }, stream, launches, replays,
                               what);
}

}  // namespace strata::cuda

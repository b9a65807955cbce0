/// strata/engine.h: the four objects a user touches, in the order they are used.
///   Model   - a network: loaded from ONNX, taken from the built-in zoo, or built with the C++ builder.
///   Engine  - the Model compiled for one device, precision and batch size (a Plan plus weights); build once.
///   Context - the per-caller state for running an Engine (activation memory, later streams and graphs).
/// Every call that can fail returns Status or Expected<T>; no exception escapes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/status.h"
#include "strata/tensor.h"

namespace strata {

namespace ir { class Graph; }
namespace build { struct Plan; }
namespace runtime { class Executor; }

/// Where an Engine runs.
struct Device {
    enum class Kind : uint8_t { cpu, cuda };
    Kind kind = Kind::cpu;
    int index = 0;
    static Device cpu() { return {Kind::cpu, 0}; }
    static Device cuda(int index = 0) { return {Kind::cuda, index}; }
    /// "cpu" or "cuda" / "cuda:1".
    static Expected<Device> parse(const std::string& text);
    std::string str() const;
};

/// The arithmetic precision of convolutions and GEMMs (activations follow it on the GPU).
enum class Precision : uint8_t { fp32, tf32, fp16, bf16, int8 };
const char* precision_name(Precision p);
Expected<Precision> parse_precision(const std::string& text);

/// Inputs and outputs by name.
using TensorMap = std::map<std::string, Tensor>;

/// What a graph input or output looks like (dims of -1 are dynamic).
struct TensorInfo {
    std::string name;
    DType dtype = DType::f32;
    Shape shape;
};

/// A network, before building. Cheap to copy (shared, immutable).
class Model {
public:
    /// Loads an ONNX file (opsets 7-21; external data files next to the model are read).
    static Expected<Model> from_onnx(const std::string& path);
    /// Parses an ONNX ModelProto held in memory; `name` appears in error messages.
    static Expected<Model> from_onnx_bytes(const void* data, size_t size, const std::string& name = "<memory>");
    /// A network from the built-in zoo (`strata zoo` lists them).
    static Expected<Model> from_zoo(const std::string& name);
    /// Wraps a graph made with the builder API (src/ir/builder.h).
    explicit Model(std::shared_ptr<const ir::Graph> graph);

    std::vector<TensorInfo> inputs() const;
    std::vector<TensorInfo> outputs() const;
    const ir::Graph& graph() const { return *graph_; }

private:
    std::shared_ptr<const ir::Graph> graph_;
};

/// How to build an Engine.
struct BuildOptions {
    Device device = Device::cpu();
    Precision precision = Precision::fp32;
    int batch = 0;        ///< the batch size the Engine runs; 0 = the model's own, or 1 where the model's is dynamic
    int threads = 0;      ///< CPU worker threads; 0 = one per core
    bool optimize = true; ///< run the graph passes (folding, fusion); off only for debugging
    /// GPU: the timing cache file ("" = $STRATA_TIMING_CACHE or ~/.cache/strata/timing.cache; "none" = none).
    std::string timing_cache;
    bool show_progress = false;  ///< GPU: print the tactic timing's progress to stderr
};

class Context;

/// A Model compiled for one device, precision and batch size.
class Engine {
public:
    static Expected<Engine> build(const Model& model, const BuildOptions& options = {});
    /// Loads a plan saved by save() (or `strata build`) without rebuilding. A plan built for another GPU, driver
    /// generation, CUDA runtime or strata version is refused with a message that says what differs.
    static Expected<Engine> load(const std::string& path);
    /// Saves the plan: graph, chosen kernels, memory plan and weights, with the device and version it was built for.
    Status save(const std::string& path) const;

    std::vector<TensorInfo> inputs() const;
    std::vector<TensorInfo> outputs() const;
    const BuildOptions& options() const;
    /// One line per step: name, op, chosen kernel (tactic), output shape.
    std::string describe() const;

    Expected<Context> make_context() const;

    Engine(Engine&&) noexcept;
    Engine& operator=(Engine&&) noexcept;
    ~Engine();

private:
    struct Impl;
    explicit Engine(std::shared_ptr<Impl> impl);
    std::shared_ptr<Impl> impl_;
    friend class Context;
};

/// Runs an Engine. One Context per thread; a Context reuses its memory across runs.
class Context {
public:
    /// Runs the network. Every graph input must be given with the Engine's shape and dtype.
    Expected<TensorMap> run(const TensorMap& inputs);
    /// GPU engines: replays the network `iterations` times on the inputs of the last run() (after `warmup`
    /// replays) and returns each replay's GPU time in milliseconds (CUDA events around CUDA graph replays).
    Expected<std::vector<double>> time_device(int warmup, int iterations);

    /// One step's measured time (`strata profile`).
    struct StepTime {
        std::string name, op, kernel;  ///< node name, op, chosen kernel (tactic and config)
        double ms = 0;                 ///< median per launch (GPU: CUDA events around graph replays of the step)
        double flops = 0, bytes = 0;   ///< the work and the fewest bytes the step moves (ir/cost.h)
        std::string detail;            ///< what the kernel chose inside (tile, algorithm); may be empty
    };
    /// GPU engines: times every step separately (a CUDA graph of the step alone, replayed `iterations` times after a
    /// warm-up), on the inputs of the last run(); aliased view steps are left out.
    Expected<std::vector<StepTime>> profile_steps(int iterations);

    Context(Context&&) noexcept;
    Context& operator=(Context&&) noexcept;
    ~Context();

private:
    struct Impl;
    explicit Context(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
    friend class Engine;
};

/// strata's version, "0.1.0".
const char* version();

}  // namespace strata

// cmd_run.cpp: `strata run MODEL`: one inference. Inputs come from --input (.npy or image) or seeded random data;
// the result is printed as top-K classes per row for [N,C] outputs (else output shapes) and optionally saved.
// The batch follows the input: a .npy's first axis sets the Engine's batch, so a file from PyTorch just works.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

#include "commands.h"
#include "core/check.h"
#include "core/half.h"
#include "core/npy.h"
#include "input_loading.h"
#include "model_loading.h"

namespace strata::cli {
namespace {

struct RunFlags {
    std::string model;
    std::vector<std::string> inputs;
    BuildFlags build;
    int batch = 0;
    int top = 5;
    std::string output;
};

// The --input tensors by input name, and the batch they ask for (0: none does).
struct GivenInputs {
    TensorMap tensors;
    std::set<std::string> images;  ///< inputs given as an image: [1,3,H,W], repeated to the Engine's batch
    int64_t npy_batch = 0;
    std::string npy_batch_source;
};

// A .npy asks for its batch when the model's batch is dynamic or differs from it; one that matches a static model's
// input exactly asks for nothing (a static model's inputs need not share a first dimension: MatMul [2,3] x [3,4]).
GivenInputs read_inputs(const RunFlags& f, const std::vector<TensorInfo>& infos) {
    STRATA_CHECK(f.inputs.size() <= infos.size(), StatusCode::invalid_argument,
                 "{} --input files given, but the model has {} input(s)", f.inputs.size(), infos.size());
    GivenInputs given;
    for (size_t i = 0; i < f.inputs.size(); ++i) {
        Tensor t = load_input(f.inputs[i], infos[i]);
        given.tensors[infos[i].name] = t;
        if (is_image_path(f.inputs[i])) {
            given.images.insert(infos[i].name);
            continue;
        }
        if (t.rank() == 0 || (infos[i].shape[0] >= 0 && infos[i].shape[0] == t.dim(0))) continue;
        STRATA_CHECK(given.npy_batch == 0 || given.npy_batch == t.dim(0), StatusCode::invalid_argument,
                     "{} has batch {} but {} has batch {}", f.inputs[i], t.dim(0), given.npy_batch_source,
                     given.npy_batch);
        given.npy_batch = t.dim(0);
        given.npy_batch_source = f.inputs[i];
    }
    return given;
}

// The batch to build for: a .npy's, else --batch, else 0 (the model's own; 1 where it is dynamic).
int batch_to_build(const RunFlags& f, const GivenInputs& given) {
    if (given.npy_batch == 0) return f.batch;
    STRATA_CHECK(f.batch == 0 || f.batch == given.npy_batch, StatusCode::invalid_argument,
                 "--batch {} does not match the batch of {} ({})", f.batch, given.npy_batch_source, given.npy_batch);
    return static_cast<int>(given.npy_batch);
}

// Fills in every input the Engine needs: given ones (images repeated to the batch), the rest seeded random.
TensorMap complete_inputs(const Engine& engine, const GivenInputs& given) {
    TensorMap feeds;
    uint64_t seed = 0;
    for (const TensorInfo& info : engine.inputs()) {
        const Shape shape = concrete_shape(info, 1);  // the Engine's shapes are fixed; this only checks
        auto it = given.tensors.find(info.name);
        if (it == given.tensors.end()) {
            std::fprintf(stderr, "strata: no --input for '%s': using seeded random normal data %s (seed %llu)\n",
                         info.name.c_str(), shape_str(shape).c_str(), static_cast<unsigned long long>(seed));
            feeds[info.name] = random_input(info.dtype, shape, seed++);
        } else if (given.images.count(info.name) && !shape.empty() && shape[0] != it->second.dim(0)) {
            feeds[info.name] = repeat_batch(it->second, shape[0]);
        } else {
            feeds[info.name] = it->second;  // a mismatch is reported by Context::run, naming the input
        }
    }
    return feeds;
}

double element(const Tensor& t, int64_t i) {
    switch (t.dtype()) {
        case DType::f32: return t.data<float>()[i];
        case DType::f16: return fp16_to_float(t.data<uint16_t>()[i]);
        case DType::bf16: return bf16_to_float(t.data<uint16_t>()[i]);
        case DType::i8: return t.data<int8_t>()[i];
        case DType::u8: return t.data<uint8_t>()[i];
        case DType::i32: return t.data<int32_t>()[i];
        case DType::i64: return static_cast<double>(t.data<int64_t>()[i]);
        case DType::boolean: return t.data<uint8_t>()[i];
    }
    return 0;
}

// One line per row of an [N,C] output: the K largest values, largest first (NaN last, ties by lower index).
void print_top_k(const std::string& name, const Tensor& t, int k) {
    const int64_t rows = t.dim(0), cols = t.dim(1);
    k = static_cast<int>(std::min<int64_t>(k, cols));
    std::printf("%s %s %s: top %d per row, class (value)\n", name.c_str(), shape_str(t.shape()).c_str(),
                dtype_name(t.dtype()), k);
    std::vector<int64_t> idx(static_cast<size_t>(cols));
    for (int64_t r = 0; r < rows; ++r) {
        auto value = [&](int64_t c) {
            double v = element(t, r * cols + c);
            return std::isnan(v) ? -INFINITY : v;
        };
        std::iota(idx.begin(), idx.end(), 0);
        std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int64_t a, int64_t b) {
            return value(a) > value(b) || (value(a) == value(b) && a < b);
        });
        std::string line = fmt::format("  row {}:", r);
        for (int i = 0; i < k; ++i) line += fmt::format("  {} ({:.6g})", idx[i], element(t, r * cols + idx[i]));
        std::printf("%s\n", line.c_str());
    }
}

void print_outputs(const Engine& engine, const TensorMap& outputs, int top) {
    for (const TensorInfo& info : engine.outputs()) {
        auto it = outputs.find(info.name);
        STRATA_ASSERT(it != outputs.end(), "the engine did not produce output '{}'", info.name);
        const Tensor& t = it->second;
        if (t.rank() == 2 && t.dim(0) > 0 && t.dim(1) > 0) {
            print_top_k(info.name, t, top);
        } else {
            std::printf("%s %s %s\n", info.name.c_str(), shape_str(t.shape()).c_str(), dtype_name(t.dtype()));
        }
    }
}

bool has_suffix(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Checked before anything runs, so a typo in the file name does not cost a whole inference.
void check_output_name(const std::string& path, size_t num_outputs) {
    if (path.empty() || has_suffix(path, ".npz")) return;
    STRATA_CHECK(has_suffix(path, ".npy"), StatusCode::invalid_argument,
                 "--output {}: name a .npy file (one output) or an .npz file (all outputs)", path);
    STRATA_CHECK(num_outputs == 1, StatusCode::invalid_argument,
                 "--output {}: the model has {} outputs; name an .npz file to save them all", path, num_outputs);
}

void write_outputs(const std::string& path, const TensorMap& outputs) {
    if (has_suffix(path, ".npz")) {
        write_npz(path, outputs);
    } else {
        write_npy(path, outputs.begin()->second);
    }
    std::fprintf(stderr, "strata: wrote %s\n", path.c_str());
}

void run(const RunFlags& f) {
    LoadedModel model = load_model(f.model);
    // A plan is loaded first (its inputs are the plan's); a model is built once the inputs fix the batch.
    std::optional<Engine> loaded;
    if (!model.model) loaded = build_engine(model, build_options(f.build, f.batch), &f.build);
    check_output_name(f.output, loaded ? loaded->outputs().size() : model.model->outputs().size());
    const std::vector<TensorInfo> infos = loaded ? loaded->inputs() : model.model->inputs();
    const GivenInputs given = read_inputs(f, infos);
    Engine engine = loaded ? std::move(*loaded)
                           : build_engine(model, build_options(f.build, batch_to_build(f, given)), &f.build);
    const TensorMap feeds = complete_inputs(engine, given);
    Context context = engine.make_context().value();
    TensorMap outputs = context.run(feeds).value();
    print_outputs(engine, outputs, f.top);
    if (!f.output.empty()) write_outputs(f.output, outputs);
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
    auto flags = std::make_shared<RunFlags>();
    CLI::App* cmd = app.add_subcommand("run", "run MODEL once and print the top classes (or the output shapes)");
    add_model_argument(*cmd, flags->model);
    cmd->add_option("-i,--input", flags->inputs,
                    "a .npy file (its first axis sets the batch) or an image (.jpg/.png/.bmp, resized and normalised "
                    "as torchvision's ImageNet eval transform); repeat for models with several inputs; without it, "
                    "seeded random normal data")
        ->allow_extra_args(false);
    add_build_flags(*cmd, flags->build);
    cmd->add_option("--batch", flags->batch, "batch size for random or image input (a .npy sets its own)")
        ->check(at_least(1));
    cmd->add_option("--top", flags->top, "classes printed per row of an [N,C] output")
        ->capture_default_str()
        ->check(at_least(1));
    cmd->add_option("-o,--output", flags->output,
                    "save the output: NAME.npy (a single output) or NAME.npz (every output, by name)");
    cmd->footer("Examples:\n  strata run mobilenet_v2 --input cat.jpg --top 5\n"
                "  strata run model.onnx --input x.npy --output logits.npy\n"
                "  strata run squeezenet1_1 --batch 4 --threads 2");
    return {cmd, [flags] { run(*flags); }};
}

}  // namespace strata::cli

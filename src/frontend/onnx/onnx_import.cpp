// onnx_import.cpp: ModelProto -> ir::Graph: the opset, initializers, graph inputs and outputs, and the node loop
// that hands each node to its converter (onnx_converters.cpp). Every error leaving this file starts with the
// model's file name; the node-level ones also name the node and op.
#include "frontend/onnx/onnx_import.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <unordered_set>

#include "core/check.h"
#include "frontend/onnx/onnx_context.h"
#include "frontend/onnx/onnx_tensor.h"

namespace strata::frontend {
namespace {

constexpr int64_t kMaxOpset = 21;

bool is_default_domain(const std::string& domain) {
    return domain.empty() || domain == "ai.onnx";
}

int64_t default_opset(const onnx::ModelProto& model) {
    std::optional<int64_t> opset;
    for (const auto& entry : model.opset_import())
        if (is_default_domain(entry.domain())) opset = entry.version();
    STRATA_CHECK(opset.has_value(), StatusCode::parse_error, "the model imports no default-domain (ai.onnx) opset");
    STRATA_CHECK(*opset >= 1, StatusCode::parse_error, "default-domain opset {} is invalid", *opset);
    if (*opset > kMaxOpset)
        STRATA_UNSUPPORTED("opset {} (strata supports default-domain opsets 1 to {})", *opset, kMaxOpset);
    return *opset;
}

class ModelImporter {
public:
    ModelImporter(const onnx::ModelProto& model, const std::string& file, const std::string& base_dir)
        : model_(model), graph_proto_(model.graph()), graph_(std::make_shared<ir::Graph>()) {
        state_.graph = graph_.get();
        state_.file = file;
        state_.base_dir = base_dir;
    }

    std::shared_ptr<ir::Graph> run() {
        STRATA_CHECK(model_.has_graph() && graph_proto_.node_size() > 0, StatusCode::parse_error,
                     "the model has an empty graph (no nodes)");
        state_.opset = default_opset(model_);
        graph_->name = graph_proto_.name();
        collect_names();
        add_initializers();
        add_inputs();
        for (const onnx::NodeProto& node : graph_proto_.node()) convert_node(node);
        add_outputs();
        return graph_;
    }

private:
    void collect_names() {
        for (const auto& t : graph_proto_.initializer()) state_.onnx_names.insert(t.name());
        for (const auto& v : graph_proto_.input()) state_.onnx_names.insert(v.name());
        for (const auto& v : graph_proto_.output()) {
            state_.onnx_names.insert(v.name());
            state_.used_names.insert(v.name());
        }
        for (const auto& n : graph_proto_.node()) {
            for (const auto& name : n.input()) state_.used_names.insert(name);
            for (const auto& name : n.output()) state_.onnx_names.insert(name);
        }
    }

    void define(const std::string& name, ir::ValueId v, const char* what) {
        STRATA_CHECK(!name.empty(), StatusCode::parse_error, "a graph {} has an empty name", what);
        STRATA_CHECK(state_.values.emplace(name, v).second, StatusCode::parse_error, "{} '{}' is defined twice", what,
                     name);
    }

    void add_initializers() {
        if (graph_proto_.sparse_initializer_size() > 0)
            STRATA_UNSUPPORTED("sparse initializers ('{}')", graph_proto_.sparse_initializer(0).values().name());
        for (const onnx::TensorProto& t : graph_proto_.initializer()) {
            Tensor data = tensor_from_proto(t, fmt::format("initializer '{}'", t.name()), state_.base_dir);
            STRATA_CHECK(!t.name().empty(), StatusCode::parse_error, "an initializer has an empty name");
            define(t.name(), graph_->add_constant(t.name(), std::move(data)), "initializer");
        }
    }

    // Graph inputs that are also initializers (older IR versions list weights there) are the constants already
    // added. A dim_param or a missing dim_value is -1, the dynamic batch resolved when building.
    void add_inputs() {
        for (const onnx::ValueInfoProto& vi : graph_proto_.input()) {
            if (state_.values.count(vi.name()) && graph_->is_constant(state_.values.at(vi.name()))) continue;
            const onnx::TypeProto& type = vi.type();
            if (!type.has_tensor_type())
                STRATA_UNSUPPORTED("graph input '{}' is not a tensor (sequence, map or optional types)", vi.name());
            const int32_t elem = type.tensor_type().elem_type();
            std::optional<DType> dtype = dtype_from_onnx(elem);
            if (!dtype)
                STRATA_UNSUPPORTED("graph input '{}' has type {} (strata holds {})", vi.name(), onnx_dtype_name(elem),
                                   supported_dtypes_text());
            Shape shape;
            for (const auto& dim : type.tensor_type().shape().dim()) {
                STRATA_CHECK(!dim.has_dim_value() || dim.dim_value() >= 0, StatusCode::parse_error,
                             "graph input '{}' has a negative dimension {}", vi.name(), dim.dim_value());
                shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
            }
            ir::ValueId v = graph_->add_value(vi.name(), *dtype, shape, type.tensor_type().has_shape());
            define(vi.name(), v, "input");
            graph_->inputs().push_back(v);
        }
    }

    void convert_node(const onnx::NodeProto& node) {
        NodeContext ctx(state_, node);
        if (!is_default_domain(node.domain()))
            STRATA_UNSUPPORTED("op '{}' of domain '{}' ({}; strata supports the default ai.onnx domain only)",
                               node.op_type(), node.domain(), ctx.label());
        for (const std::string& in : node.input())
            STRATA_CHECK(in.empty() || state_.values.count(in), StatusCode::parse_error,
                         "{}: input '{}' is not a graph input, an initializer or an earlier node's output", ctx.label(),
                         in);
        STRATA_CHECK(node.output_size() > 0, StatusCode::parse_error, "{} has no outputs", ctx.label());
        Converter convert = find_converter(node.op_type());
        if (!convert)
            STRATA_UNSUPPORTED("op '{}' (node '{}', opset {}); strata supports: {}", node.op_type(), ctx.name(),
                               state_.opset, supported_ops_text());
        convert(ctx);
    }

    void add_outputs() {
        STRATA_CHECK(graph_proto_.output_size() > 0, StatusCode::parse_error, "the graph has no outputs");
        std::unordered_set<std::string> seen;
        for (const onnx::ValueInfoProto& vi : graph_proto_.output()) {
            auto it = state_.values.find(vi.name());
            STRATA_CHECK(it != state_.values.end(), StatusCode::parse_error,
                         "graph output '{}' is not produced by any node, input or initializer", vi.name());
            STRATA_CHECK(seen.insert(vi.name()).second, StatusCode::parse_error, "graph output '{}' is listed twice",
                         vi.name());
            graph_->outputs().push_back(it->second);
        }
    }

    const onnx::ModelProto& model_;
    const onnx::GraphProto& graph_proto_;
    std::shared_ptr<ir::Graph> graph_;
    ImportState state_;
};

std::string parent_dir(const std::string& path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::shared_ptr<ir::Graph> import_onnx_bytes(const void* data, size_t size, const std::string& name,
                                             const std::string& base_dir) {
    try {
        onnx::ModelProto model;
        STRATA_CHECK(size <= static_cast<size_t>(std::numeric_limits<int>::max()) &&
                         model.ParseFromArray(data, static_cast<int>(size)),
                     StatusCode::parse_error, "not a valid ONNX model (protobuf parse failed)");
        return ModelImporter(model, name, base_dir).run();
    } catch (const Error& e) {
        throw Error(e.code(), fmt::format("{}: {}", name, e.what()));
    }
}

std::shared_ptr<ir::Graph> import_onnx_file(const std::string& path) {
    std::error_code ec;
    STRATA_CHECK(std::filesystem::is_regular_file(path, ec), StatusCode::not_found, "{}: no such file", path);
    std::ifstream in(path, std::ios::binary);
    STRATA_CHECK(in.good(), StatusCode::not_found, "{}: cannot be opened", path);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    STRATA_CHECK(!in.bad(), StatusCode::not_found, "{}: cannot be read", path);
    return import_onnx_bytes(bytes.data(), bytes.size(), path, parent_dir(path));
}

}  // namespace strata::frontend

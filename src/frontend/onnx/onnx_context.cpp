// onnx_context.cpp: NodeContext (checked attribute access, input lookup, node emission) and the window attributes
// convolutions and pools share.
#include "frontend/onnx/onnx_context.h"

#include <algorithm>

#include "core/check.h"
#include "frontend/onnx/onnx_tensor.h"

namespace strata::frontend {

using onnx::AttributeProto;

NodeContext::NodeContext(ImportState& state, const onnx::NodeProto& node) : state_(state), node_(node) {
    // Unnamed nodes (common in older exports) are called after their first output.
    name_ = !node.name().empty() ? node.name() : node.output_size() > 0 ? node.output(0) : node.op_type();
}

std::string NodeContext::label() const {
    return fmt::format("{} '{}'", node_.op_type(), name_);
}

ir::ValueId NodeContext::input(size_t i, const char* what) const {
    STRATA_CHECK(has_input(i), StatusCode::parse_error, "{}: required input {} ({}) is missing", label(), i, what);
    return state_.values.at(node_.input(static_cast<int>(i)));
}

ir::ValueId NodeContext::optional_input(size_t i) const {
    return has_input(i) ? state_.values.at(node_.input(static_cast<int>(i))) : ir::kNoValue;
}

void NodeContext::expect_inputs(size_t lo, size_t hi) const {
    STRATA_CHECK(num_inputs() >= lo && num_inputs() <= hi, StatusCode::parse_error,
                 "{} has {} inputs; opset {} expects {}", label(), num_inputs(), opset(),
                 lo == hi ? fmt::format("{}", lo) : fmt::format("{} to {}", lo, hi));
}

const Tensor* NodeContext::constant_input(size_t i) const {
    ir::ValueId v = optional_input(i);
    if (v == ir::kNoValue || !state_.graph->is_constant(v)) return nullptr;
    return &*state_.graph->value(v).constant;
}

std::optional<size_t> NodeContext::known_rank(ir::ValueId v) const {
    const ir::Value& value = state_.graph->value(v);
    if (!value.has_shape) return std::nullopt;
    return value.shape.size();
}

// --- Attributes

const AttributeProto* NodeContext::find_attr(const char* name) const {
    for (const AttributeProto& a : node_.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

void NodeContext::bad_attr(const char* name, const std::string& what) const {
    STRATA_THROW(StatusCode::parse_error, "{}: attribute '{}' {}", label(), name, what);
}

// Old exporters leave AttributeProto.type unset; then the field that is present says the type.
const AttributeProto* NodeContext::typed_attr(const char* name, AttributeProto::AttributeType type,
                                              bool has_field) const {
    const AttributeProto* a = find_attr(name);
    if (!a) return nullptr;
    if (a->type() == type || (a->type() == AttributeProto::UNDEFINED && has_field)) return a;
    std::string got = AttributeProto::AttributeType_IsValid(a->type()) ? AttributeProto::AttributeType_Name(a->type())
                                                                       : fmt::format("{}", static_cast<int>(a->type()));
    bad_attr(name, fmt::format("has type {}, expected {}", got, AttributeProto::AttributeType_Name(type)));
}

std::optional<int64_t> NodeContext::attr_int(const char* name) const {
    const AttributeProto* f = find_attr(name);
    const AttributeProto* a = typed_attr(name, AttributeProto::INT, f && f->has_i());
    return a ? std::optional<int64_t>(a->i()) : std::nullopt;
}

std::optional<float> NodeContext::attr_float(const char* name) const {
    const AttributeProto* f = find_attr(name);
    const AttributeProto* a = typed_attr(name, AttributeProto::FLOAT, f && f->has_f());
    return a ? std::optional<float>(a->f()) : std::nullopt;
}

std::optional<std::string> NodeContext::attr_string(const char* name) const {
    const AttributeProto* f = find_attr(name);
    const AttributeProto* a = typed_attr(name, AttributeProto::STRING, f && f->has_s());
    return a ? std::optional<std::string>(a->s()) : std::nullopt;
}

std::optional<std::vector<int64_t>> NodeContext::attr_ints(const char* name) const {
    const AttributeProto* f = find_attr(name);
    const AttributeProto* a = typed_attr(name, AttributeProto::INTS, f && f->ints_size() > 0);
    if (!a) return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> NodeContext::attr_floats(const char* name) const {
    const AttributeProto* f = find_attr(name);
    const AttributeProto* a = typed_attr(name, AttributeProto::FLOATS, f && f->floats_size() > 0);
    if (!a) return std::nullopt;
    return std::vector<float>(a->floats().begin(), a->floats().end());
}

const onnx::TensorProto* NodeContext::attr_tensor(const char* name) const {
    const AttributeProto* f = find_attr(name);
    const AttributeProto* a = typed_attr(name, AttributeProto::TENSOR, f && f->has_t());
    return a ? &a->t() : nullptr;
}

Tensor NodeContext::attr_tensor_value(const char* name) const {
    const onnx::TensorProto* t = attr_tensor(name);
    STRATA_ASSERT(t != nullptr, "{}: attr_tensor_value('{}') called without the attribute", label(), name);
    return tensor_from_proto(*t, fmt::format("{} attribute '{}'", label(), name), state_.base_dir);
}

// --- Outputs

bool NodeContext::output_used(size_t i) const {
    return has_output(i) && state_.used_names.count(node_.output(static_cast<int>(i))) > 0;
}

std::string NodeContext::fresh_name(const std::string& base) const {
    std::string candidate = base;
    for (int i = 1; state_.onnx_names.count(candidate) || state_.graph->find_value(candidate); ++i)
        candidate = fmt::format("{}_{}", base, i);
    return candidate;
}

ir::ValueId NodeContext::new_output_value(size_t i) {
    STRATA_CHECK(i < num_outputs(), StatusCode::parse_error, "{} has {} outputs, expected at least {}", label(),
                 num_outputs(), i + 1);
    const std::string& onnx_name = node_.output(static_cast<int>(i));
    if (onnx_name.empty())
        return graph().add_value(fresh_name(fmt::format("{}_out{}", name_, i)), DType::f32, {}, false);
    ir::ValueId v = graph().add_value(onnx_name, DType::f32, {}, false);
    bind_output(i, v);
    return v;
}

void NodeContext::bind_output(size_t i, ir::ValueId v) {
    STRATA_CHECK(has_output(i), StatusCode::parse_error, "{}: output {} has no name", label(), i);
    const std::string& onnx_name = node_.output(static_cast<int>(i));
    STRATA_CHECK(!state_.values.count(onnx_name), StatusCode::parse_error,
                 "{}: output '{}' is already defined by a graph input, an initializer or an earlier node "
                 "(ONNX names are assigned once)",
                 label(), onnx_name);
    state_.values.emplace(onnx_name, v);
}

void NodeContext::bind_constant_output(size_t i, Tensor data) {
    STRATA_CHECK(has_output(i), StatusCode::parse_error, "{}: output {} has no name", label(), i);
    bind_output(i, graph().add_constant(node_.output(static_cast<int>(i)), std::move(data)));
}

ir::Node& NodeContext::emit(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attrs attrs, size_t n_outputs) {
    while (!inputs.empty() && inputs.back() == ir::kNoValue) inputs.pop_back();
    std::vector<ir::ValueId> outputs;
    for (size_t i = 0; i < n_outputs; ++i) outputs.push_back(new_output_value(i));
    size_t index = graph().add_node(op, name_, std::move(inputs), std::move(outputs), std::move(attrs));
    ir::Node& node = graph().nodes()[index];
    ir::absorb_constant_params(graph(), node);
    return node;
}

ir::ValueId NodeContext::emit_internal(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attrs attrs,
                                       const std::string& suffix) {
    std::string name = fresh_name(fmt::format("{}_{}", name_, suffix));
    ir::ValueId out = graph().add_value(name, DType::f32, {}, false);
    size_t index = graph().add_node(op, name, std::move(inputs), {out}, std::move(attrs));
    ir::absorb_constant_params(graph(), graph().nodes()[index]);
    return out;
}

ir::ValueId NodeContext::add_internal_constant(const std::string& suffix, Tensor data) {
    return graph().add_constant(fresh_name(fmt::format("{}_{}", name_, suffix)), std::move(data));
}

// --- Shared attribute helpers

ir::AutoPad read_auto_pad(const NodeContext& ctx) {
    std::string s = ctx.attr_string("auto_pad").value_or("NOTSET");
    if (s == "NOTSET" || s.empty()) return ir::AutoPad::explicit_pads;
    if (s == "SAME_UPPER") return ir::AutoPad::same_upper;
    if (s == "SAME_LOWER") return ir::AutoPad::same_lower;
    if (s == "VALID") return ir::AutoPad::valid;
    ctx.bad_attr("auto_pad", fmt::format("is '{}'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID", s));
}

namespace {

std::vector<int64_t> positive_ints(const NodeContext& ctx, const char* name, size_t rank) {
    std::vector<int64_t> v = ctx.attr_ints(name).value_or(std::vector<int64_t>(rank, 1));
    if (v.size() != rank)
        ctx.bad_attr(name, fmt::format("has {} entries, expected {} (one per spatial dim)", v.size(), rank));
    for (int64_t x : v)
        if (x < 1) ctx.bad_attr(name, fmt::format("has entry {}, expected >= 1", x));
    return v;
}

}  // namespace

WindowAttrs read_window(const NodeContext& ctx, std::vector<int64_t> kernel) {
    const size_t rank = kernel.size();
    STRATA_CHECK(rank > 0, StatusCode::parse_error, "{}: kernel has no spatial dims", ctx.label());
    if (rank > 2)
        STRATA_UNSUPPORTED("{} {}-D kernel ({}; strata supports 1-D and 2-D)", ctx.op_type(), rank, ctx.label());
    for (int64_t k : kernel)
        STRATA_CHECK(k >= 1, StatusCode::parse_error, "{}: kernel size {} in {}, expected >= 1", ctx.label(), k,
                     shape_str(kernel));
    WindowAttrs w;
    w.kernel = std::move(kernel);
    w.strides = positive_ints(ctx, "strides", rank);
    w.dilations = positive_ints(ctx, "dilations", rank);
    std::vector<int64_t> pads = ctx.attr_ints("pads").value_or(std::vector<int64_t>(2 * rank, 0));
    if (pads.size() != 2 * rank)
        ctx.bad_attr("pads", fmt::format("has {} entries, expected {} (begins, then ends)", pads.size(), 2 * rank));
    for (int64_t p : pads)
        if (p < 0) ctx.bad_attr("pads", fmt::format("has entry {}, expected >= 0", p));
    w.pads_begin.assign(pads.begin(), pads.begin() + static_cast<long>(rank));
    w.pads_end.assign(pads.begin() + static_cast<long>(rank), pads.end());
    w.auto_pad = read_auto_pad(ctx);
    return w;
}

}  // namespace strata::frontend

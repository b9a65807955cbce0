// device_storage.cpp: see device_storage.h.
#include "build/device_storage.h"

#include <map>
#include <optional>

#include "core/check.h"

namespace strata::build {

namespace {

// The layout an activation of `shape` takes when a layout-aware op produces or reads it.
Layout aware_layout(const Shape& shape, Layout net) {
    return shape.size() == 4 && net == Layout::nhwc ? Layout::nhwc : Layout::rowmajor;
}

struct Rewriter {
    ir::Graph& graph;
    DType compute;
    Layout net;
    std::vector<Layout> layouts;                                  // per value (grows with new values)
    std::map<std::pair<ir::ValueId, Layout>, ir::ValueId> casts;  // memoised conversions of a value

    // A Cast of `v` into (dtype, layout), added at the end of the node list (topo_sort places it).
    ir::ValueId convert(ir::ValueId v, DType dtype, Layout layout, const std::string& why) {
        auto key = std::make_pair(v, layout);
        if (auto it = casts.find(key); it != casts.end() && graph.value(it->second).dtype == dtype) return it->second;
        const ir::Value src = graph.value(v);
        std::string name = graph.unique_name(src.name + "." + why);
        ir::ValueId out = graph.add_value(name, dtype, src.shape);
        graph.add_node(ir::OpKind::Cast, name, {v}, {out}, ir::CastAttrs{dtype});
        layouts.resize(graph.num_values(), Layout::rowmajor);
        layouts[out] = layout;
        casts[key] = out;
        return out;
    }

    void set_activation_storage() {
        layouts.assign(graph.num_values(), Layout::rowmajor);
        for (ir::Node& node : graph.nodes()) {
            bool logical = needs_logical_order(node.op);
            if (node.op == ir::OpKind::Cast && is_float_dtype(node.attr<ir::CastAttrs>().to))
                node.attr<ir::CastAttrs>().to = compute;
            for (ir::ValueId out : node.outputs) {
                if (out == ir::kNoValue) continue;
                ir::Value& v = graph.value(out);
                if (is_float_dtype(v.dtype)) v.dtype = compute;
                layouts[out] = logical ? Layout::rowmajor : aware_layout(v.shape, net);
            }
        }
    }

    // Graph inputs become float32 logical-order values read by a Cast into the network's form.
    void convert_inputs() {
        for (ir::ValueId in : graph.inputs()) {
            ir::Value& v = graph.value(in);
            if (!is_float_dtype(v.dtype) || (v.dtype == compute && aware_layout(v.shape, net) == Layout::rowmajor))
                continue;
            std::vector<size_t> readers = graph.consumers(in);
            ir::ValueId dev = convert(in, compute, aware_layout(v.shape, net), "to_device");
            for (size_t r : readers)
                for (ir::ValueId& x : graph.nodes()[r].inputs)
                    if (x == in) x = dev;
        }
    }

    // Each reader gets its inputs in the order it needs: logical for needs_logical_order ops, else the network's.
    void convert_reader_inputs() {
        size_t count = graph.nodes().size();
        for (size_t n = 0; n < count; ++n) {
            ir::OpKind op = graph.nodes()[n].op;
            if (op == ir::OpKind::Cast) continue;  // a Cast converts between any two forms
            bool logical = needs_logical_order(op);
            for (size_t i = 0; i < graph.nodes()[n].inputs.size(); ++i) {
                ir::ValueId in = graph.nodes()[n].inputs[i];
                if (in == ir::kNoValue || graph.is_constant(in)) continue;
                const ir::Value& v = graph.value(in);
                Layout want = logical ? Layout::rowmajor : aware_layout(v.shape, net);
                if (layouts[in] == want) continue;
                ir::ValueId conv = convert(in, v.dtype, want, want == Layout::nhwc ? "to_nhwc" : "to_nchw");
                graph.nodes()[n].inputs[i] = conv;
            }
        }
    }

    // NOTE [fp32 outputs]: a GEMM's output that only leaves the graph is written in float32 by the GEMM itself.
    void widen_gemm_outputs() {
        if (compute == DType::f32) return;
        for (ir::ValueId out : graph.outputs()) {
            ir::Value& v = graph.value(out);
            if (!is_float_dtype(v.dtype) || graph.is_graph_input(out) || graph.is_constant(out)) continue;
            const std::optional<size_t> producer = graph.producer(out);
            if (!producer || !graph.consumers(out).empty()) continue;
            const ir::Node& node = graph.nodes()[*producer];
            const bool gemm_c = node.op == ir::OpKind::Gemm && node.inputs.size() > 2 && node.inputs[2] != ir::kNoValue;
            const bool gemm = node.op == ir::OpKind::FullyConnected || node.op == ir::OpKind::MatMul ||
                              (node.op == ir::OpKind::Gemm && !gemm_c);
            if (gemm && node.outputs.size() == 1) v.dtype = DType::f32;
        }
    }

    // Graph outputs leave as float32 in logical order.
    void convert_outputs() {
        for (ir::ValueId& out : graph.outputs()) {
            const ir::Value v = graph.value(out);
            if (!is_float_dtype(v.dtype) || graph.is_graph_input(out) || graph.is_constant(out)) continue;
            if (v.dtype == DType::f32 && layouts[out] == Layout::rowmajor) continue;
            // The producer keeps writing `out` under a new name; the output name now belongs to the Cast's result.
            std::string name = v.name;
            graph.value(out).name = graph.unique_name(name + ".device");
            ir::ValueId host = graph.add_value(name, DType::f32, v.shape);
            graph.add_node(ir::OpKind::Cast, name + ".to_host", {out}, {host}, ir::CastAttrs{DType::f32});
            layouts.resize(graph.num_values(), Layout::rowmajor);
            out = host;
        }
    }
};

}  // namespace

bool needs_logical_order(ir::OpKind op) {
    using ir::OpKind;
    switch (op) {
        case OpKind::Reshape:
        case OpKind::Flatten:
        case OpKind::Squeeze:
        case OpKind::Unsqueeze:
        case OpKind::Identity:
        case OpKind::Dropout:
        case OpKind::MatMul:
        case OpKind::Gemm:
        case OpKind::FullyConnected:
        case OpKind::Shape:
            return true;
        default:
            return false;
    }
}

DeviceStorage assign_device_storage(ir::Graph& graph, DType compute, Layout layout) {
    STRATA_ASSERT(is_float_dtype(compute), "device compute dtype {}", dtype_name(compute));
    Rewriter rw{graph, compute, layout == Layout::nhwc ? Layout::nhwc : Layout::rowmajor, {}, {}};
    rw.set_activation_storage();
    rw.convert_inputs();
    rw.convert_reader_inputs();
    rw.widen_gemm_outputs();
    rw.convert_outputs();
    graph.topo_sort();
    rw.layouts.resize(graph.num_values(), Layout::rowmajor);
    return {compute, layout == Layout::nhwc ? Layout::nhwc : Layout::nchw, std::move(rw.layouts)};
}

bool is_bytewise_cast(const ir::Graph& graph, const DeviceStorage& storage, const ir::Node& node) {
    if (node.op != ir::OpKind::Cast || node.inputs.empty() || node.outputs.empty()) return false;
    const ir::Value& in = graph.value(node.inputs[0]);
    const ir::Value& out = graph.value(node.outputs[0]);
    if (in.dtype != out.dtype || in.shape != out.shape) return false;
    Layout a = storage.layouts[node.inputs[0]], b = storage.layouts[node.outputs[0]];
    if (a == b) return true;
    return in.shape.size() == 4 && (in.shape[2] * in.shape[3] == 1 || in.shape[1] == 1);
}

}  // namespace strata::build

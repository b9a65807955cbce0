// memory_plan.cpp: liveness analysis and greedy-by-size placement of activations in one arena (the approach of the
// TFLite and TensorRT planners: place big buffers first, reuse the tightest gap).
//
// NOTE [memory plan aliasing]
// A view step (is_view_op) does not move data: its output is its input's bytes under another shape. When the input
// is an activation of the arena (not a graph input or constant) that no later step reads, the output takes over the
// input's buffer: the two form one alias group, placed once, living from the first member's producing step to the
// last member's last use. The step is marked `aliased` and the executor skips it. Because the input dies at the view
// step, no step can observe the bytes under both names with different meanings.
#include "build/memory_plan.h"

#include <algorithm>
#include <numeric>

#include "core/check.h"

namespace strata::build {

namespace {

size_t align_up(size_t bytes) { return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) { return a.first <= b.last && b.first <= a.last; }

// The smallest gap between the placed buffers `live` (overlapping in time) that holds `size` bytes, else the end.
size_t best_fit_offset(std::vector<std::pair<size_t, size_t>> live, size_t size) {
    std::sort(live.begin(), live.end());
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, end = 0;
    for (auto [offset, bytes] : live) {
        if (offset > end && offset - end >= size && offset - end < best_gap) {
            best = end;
            best_gap = offset - end;
        }
        end = std::max(end, offset + bytes);
    }
    return best != SIZE_MAX ? best : end;
}

size_t value_bytes(const ir::Graph& graph, ir::ValueId id) {
    const ir::Value& v = graph.value(id);
    bool known = v.has_shape && std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d >= 0; });
    STRATA_CHECK(known, StatusCode::unsupported,
                 "unsupported: dynamic shape: value '{}' has shape {} after shape inference (set a batch size)", v.name,
                 v.has_shape ? shape_str(v.shape) : std::string("of unknown rank"));
    return static_cast<size_t>(shape_numel(v.shape)) * dtype_size(v.dtype);
}

// Per value: the step producing it and the last step reading it (the step count for graph outputs); -1 = not planned.
struct Liveness {
    std::vector<int> first, last;
};

Liveness compute_liveness(const ir::Graph& graph) {
    const auto& nodes = graph.nodes();
    Liveness live{std::vector<int>(graph.num_values(), -1), std::vector<int>(graph.num_values(), -1)};
    for (size_t s = 0; s < nodes.size(); ++s) {
        for (ir::ValueId in : nodes[s].inputs)
            if (in != ir::kNoValue && live.first[in] >= 0) live.last[in] = static_cast<int>(s);
        for (ir::ValueId out : nodes[s].outputs) {
            if (out == ir::kNoValue || graph.is_constant(out)) continue;
            STRATA_ASSERT(live.first[out] < 0, "value '{}' is produced twice", graph.value(out).name);
            live.first[out] = live.last[out] = static_cast<int>(s);
        }
    }
    for (ir::ValueId out : graph.outputs())
        if (live.first[out] >= 0) live.last[out] = static_cast<int>(nodes.size());
    return live;
}

// The view steps whose output can take over its input's buffer (NOTE [memory plan aliasing]); fills `root`.
std::vector<bool> find_aliases(const ir::Graph& graph, const Liveness& live, std::vector<ir::ValueId>& root,
                               const std::function<bool(const ir::Node&)>& is_view) {
    const auto& nodes = graph.nodes();
    std::vector<bool> aliased(nodes.size(), false);
    for (size_t s = 0; s < nodes.size(); ++s) {
        const ir::Node& node = nodes[s];
        bool view = is_view ? is_view(node) : is_view_op(node.op);
        if (!view || node.inputs.empty() || node.outputs.empty()) continue;
        bool extra_outputs = std::any_of(node.outputs.begin() + 1, node.outputs.end(),
                                         [](ir::ValueId v) { return v != ir::kNoValue; });
        ir::ValueId in = node.inputs[0], out = node.outputs[0];
        if (extra_outputs || in == ir::kNoValue || out == ir::kNoValue || live.first[in] < 0) continue;
        if (live.last[in] != static_cast<int>(s) || value_bytes(graph, in) != value_bytes(graph, out)) continue;
        root[out] = root[in];
        aliased[s] = true;
    }
    return aliased;
}

}  // namespace

bool is_view_op(ir::OpKind op) {
    using ir::OpKind;
    return op == OpKind::Reshape || op == OpKind::Flatten || op == OpKind::Squeeze || op == OpKind::Unsqueeze ||
           op == OpKind::Identity || op == OpKind::Dropout;
}

std::vector<size_t> assign_offsets(const std::vector<BufferRequest>& requests, size_t& arena_bytes) {
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (requests[a].bytes != requests[b].bytes) return requests[a].bytes > requests[b].bytes;
        return requests[a].first < requests[b].first;
    });
    std::vector<size_t> offsets(requests.size(), 0);
    std::vector<size_t> placed;
    arena_bytes = 0;
    for (size_t i : order) {
        size_t size = align_up(std::max<size_t>(requests[i].bytes, 1));
        std::vector<std::pair<size_t, size_t>> live;
        for (size_t j : placed)
            if (lifetimes_overlap(requests[i], requests[j]))
                live.emplace_back(offsets[j], align_up(std::max<size_t>(requests[j].bytes, 1)));
        offsets[i] = best_fit_offset(std::move(live), size);
        arena_bytes = std::max(arena_bytes, offsets[i] + size);
        placed.push_back(i);
    }
    return offsets;
}

MemoryPlan plan_memory(const ir::Graph& graph, bool allow_aliasing,
                       const std::function<bool(const ir::Node&)>& is_view) {
    Liveness live = compute_liveness(graph);
    std::vector<ir::ValueId> root(graph.num_values());
    std::iota(root.begin(), root.end(), ir::ValueId{0});
    MemoryPlan plan;
    plan.aliased = allow_aliasing ? find_aliases(graph, live, root, is_view) : std::vector<bool>(graph.nodes().size(), false);

    // One request per alias group, spanning its members' lifetimes.
    std::vector<int> request_of(graph.num_values(), -1);
    std::vector<BufferRequest> requests;
    for (size_t v = 0; v < graph.num_values(); ++v) {
        if (live.first[v] < 0) continue;
        size_t bytes = value_bytes(graph, static_cast<ir::ValueId>(v));
        plan.activation_bytes += bytes;
        int& r = request_of[root[v]];
        if (r < 0) {
            r = static_cast<int>(requests.size());
            requests.push_back({bytes, live.first[v], live.last[v]});
        }
        requests[r].first = std::min(requests[r].first, live.first[v]);
        requests[r].last = std::max(requests[r].last, live.last[v]);
    }
    std::vector<size_t> offsets = assign_offsets(requests, plan.arena_bytes);
    plan.offsets.assign(graph.num_values(), MemoryPlan::kNotInArena);
    for (size_t v = 0; v < graph.num_values(); ++v)
        if (live.first[v] >= 0) plan.offsets[v] = static_cast<int64_t>(offsets[request_of[root[v]]]);
    return plan;
}

}  // namespace strata::build

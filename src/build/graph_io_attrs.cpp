// graph_io_attrs.cpp: every attrs struct of ir/attrs.h to bytes and back. Each struct lists its fields once, in
// fields(); the writer and the reader walk that same list, so the two cannot disagree on order. A field added to a
// struct in attrs.h must be added to its fields() here (test_graph_io's random attrs compare every field).
#include <concepts>
#include <type_traits>

#include "build/graph_io.h"
#include "core/check.h"

namespace strata::build {
namespace {

using namespace ir;

static_assert(std::variant_size_v<Attrs> == 25, "attrs.h gained a struct: give it a fields() in graph_io_attrs.cpp");

// `A` is T or const T: one fields() serves the writer (const) and the reader.
template <class A, class T>
concept Is = std::same_as<std::remove_const_t<A>, T>;

template <class F, Is<NoAttrs> A>
void fields(F&, A&) {}
template <class F, Is<UnaryAttrs> A>
void fields(F& f, A& a) {
    f(a.kind, "Unary kind");
    f(a.alpha, "Unary alpha");
    f(a.beta, "Unary beta");
}
template <class F, Is<ConvAttrs> A>
void fields(F& f, A& a) {
    f(a.kernel, "Conv kernel");
    f(a.strides, "Conv strides");
    f(a.dilations, "Conv dilations");
    f(a.pads_begin, "Conv pads_begin");
    f(a.pads_end, "Conv pads_end");
    f(a.group, "Conv group");
    f(a.auto_pad, "Conv auto_pad");
    f(a.activation, "Conv activation");
}
template <class F, Is<ConvTransposeAttrs> A>
void fields(F& f, A& a) {
    f(a.kernel, "ConvTranspose kernel");
    f(a.strides, "ConvTranspose strides");
    f(a.dilations, "ConvTranspose dilations");
    f(a.pads_begin, "ConvTranspose pads_begin");
    f(a.pads_end, "ConvTranspose pads_end");
    f(a.output_padding, "ConvTranspose output_padding");
    f(a.output_shape, "ConvTranspose output_shape");
    f(a.group, "ConvTranspose group");
    f(a.auto_pad, "ConvTranspose auto_pad");
}
template <class F, Is<BatchNormAttrs> A>
void fields(F& f, A& a) {
    f(a.epsilon, "BatchNorm epsilon");
}
template <class F, Is<BinaryAttrs> A>
void fields(F& f, A& a) {
    f(a.kind, "Binary kind");
}
template <class F, Is<PoolAttrs> A>
void fields(F& f, A& a) {
    f(a.kernel, "Pool kernel");
    f(a.strides, "Pool strides");
    f(a.dilations, "Pool dilations");
    f(a.pads_begin, "Pool pads_begin");
    f(a.pads_end, "Pool pads_end");
    f(a.ceil_mode, "Pool ceil_mode");
    f(a.count_include_pad, "Pool count_include_pad");
    f(a.auto_pad, "Pool auto_pad");
}
template <class F, Is<GemmAttrs> A>
void fields(F& f, A& a) {
    f(a.alpha, "Gemm alpha");
    f(a.beta, "Gemm beta");
    f(a.trans_a, "Gemm trans_a");
    f(a.trans_b, "Gemm trans_b");
}
template <class F, Is<FullyConnectedAttrs> A>
void fields(F& f, A& a) {
    f(a.activation, "FullyConnected activation");
}
template <class F, Is<SoftmaxAttrs> A>
void fields(F& f, A& a) {
    f(a.axis, "Softmax axis");
    f(a.coerce_2d, "Softmax coerce_2d");
}
template <class F, Is<ReduceAttrs> A>
void fields(F& f, A& a) {
    f(a.kind, "Reduce kind");
    f(a.axes, "Reduce axes");
    f(a.keepdims, "Reduce keepdims");
    f(a.noop_with_empty_axes, "Reduce noop_with_empty_axes");
}
template <class F, Is<FlattenAttrs> A>
void fields(F& f, A& a) {
    f(a.axis, "Flatten axis");
}
template <class F, Is<ReshapeAttrs> A>
void fields(F& f, A& a) {
    f(a.shape, "Reshape shape");
    f(a.allowzero, "Reshape allowzero");
}
template <class F, Is<TransposeAttrs> A>
void fields(F& f, A& a) {
    f(a.perm, "Transpose perm");
}
template <class F, Is<AxisAttrs> A>
void fields(F& f, A& a) {
    f(a.axis, "axis");
}
template <class F, Is<SplitAttrs> A>
void fields(F& f, A& a) {
    f(a.axis, "Split axis");
    f(a.split, "Split split");
}
template <class F, Is<SliceAttrs> A>
void fields(F& f, A& a) {
    f(a.starts, "Slice starts");
    f(a.ends, "Slice ends");
    f(a.axes, "Slice axes");
    f(a.steps, "Slice steps");
}
template <class F, Is<PadAttrs> A>
void fields(F& f, A& a) {
    f(a.mode, "Pad mode");
    f(a.pads, "Pad pads");
    f(a.value, "Pad value");
}
template <class F, Is<AxesAttrs> A>
void fields(F& f, A& a) {
    f(a.axes, "axes");
}
template <class F, Is<TileAttrs> A>
void fields(F& f, A& a) {
    f(a.repeats, "Tile repeats");
}
template <class F, Is<ExpandAttrs> A>
void fields(F& f, A& a) {
    f(a.shape, "Expand shape");
}
template <class F, Is<ShapeAttrs> A>
void fields(F& f, A& a) {
    f(a.start, "Shape start");
    f(a.end, "Shape end");
}
template <class F, Is<ConstantOfShapeAttrs> A>
void fields(F& f, A& a) {
    f(a.shape, "ConstantOfShape shape");
    f(a.dtype, "ConstantOfShape dtype");
    f(a.value, "ConstantOfShape value");
}
template <class F, Is<CastAttrs> A>
void fields(F& f, A& a) {
    f(a.to, "Cast to");
}

template <class F, Is<SeparableConvAttrs> A>
void fields(F& f, A& a) {
    fields(f, a.depthwise);
    fields(f, a.pointwise);
}

// The last enumerator of each enum a field can hold: the reader refuses larger values. Extend with the enum.
constexpr UnaryKind last_enumerator(UnaryKind) {
    return UnaryKind::Reciprocal;
}
constexpr BinaryKind last_enumerator(BinaryKind) {
    return BinaryKind::PRelu;
}
constexpr AutoPad last_enumerator(AutoPad) {
    return AutoPad::valid;
}
constexpr ReduceKind last_enumerator(ReduceKind) {
    return ReduceKind::Min;
}
constexpr PadMode last_enumerator(PadMode) {
    return PadMode::edge;
}
constexpr DType last_enumerator(DType) {
    return DType::boolean;
}

struct FieldWriter {
    ByteWriter& w;
    void operator()(const std::vector<int64_t>& v, const char*) { w.i64s(v); }
    void operator()(int64_t v, const char*) { w.i64(v); }
    void operator()(bool v, const char*) { w.boolean(v); }
    void operator()(float v, const char*) { w.f32(v); }
    void operator()(double v, const char*) { w.f64(v); }
    template <class E>
    requires std::is_enum_v<E>
    void operator()(E v, const char*) {
        static_assert(sizeof(E) == 1, "enums are written as one byte");
        w.u8(static_cast<uint8_t>(v));
    }
    template <class T>
    void operator()(const std::optional<T>& v, const char* what) {
        w.boolean(v.has_value());
        if (v) (*this)(*v, what);
    }
    void operator()(const UnaryAttrs& u, const char*) { fields(*this, u); }
};

struct FieldReader {
    ByteReader& r;
    void operator()(std::vector<int64_t>& v, const char* what) { v = r.i64s(what); }
    void operator()(int64_t& v, const char* what) { v = r.i64(what); }
    void operator()(bool& v, const char* what) { v = r.boolean(what); }
    void operator()(float& v, const char* what) { v = r.f32(what); }
    void operator()(double& v, const char* what) { v = r.f64(what); }
    template <class E>
    requires std::is_enum_v<E>
    void operator()(E& v, const char* what) { v = r.enumeration(what, last_enumerator(E{})); }
    template <class T>
    void operator()(std::optional<T>& v, const char* what) {
        if (!r.boolean(what)) {
            v.reset();
            return;
        }
        T x{};
        (*this)(x, what);
        v = std::move(x);
    }
    void operator()(UnaryAttrs& u, const char*) { fields(*this, u); }
};

// The alternative index of op's attrs struct (ops.def pairs them).
size_t attrs_index(OpKind op) {
    switch (op) {
#define STRATA_OP(name, attrs) \
    case OpKind::name:         \
        return Attrs(attrs{}).index();
#include "ir/ops.def"
#undef STRATA_OP
    }
    return std::variant_npos;
}

template <size_t I = 0>
Attrs read_alternative(ByteReader& r, size_t index) {
    if constexpr (I < std::variant_size_v<Attrs>) {
        if (index != I) return read_alternative<I + 1>(r, index);
        std::variant_alternative_t<I, Attrs> a{};
        FieldReader reader{r};
        fields(reader, a);
        return a;
    } else {
        r.fail(fmt::format("attrs alternative {} does not exist", index));
    }
}

}  // namespace

void write_attrs(ByteWriter& w, OpKind op, const Attrs& attrs) {
    STRATA_CHECK(attrs.index() == attrs_index(op), StatusCode::invalid_argument,
                 "cannot save plan: a {} node holds attrs alternative {}, expected {}", op_name(op), attrs.index(),
                 attrs_index(op));
    w.u8(static_cast<uint8_t>(attrs.index()));
    FieldWriter writer{w};
    std::visit([&](const auto& a) { fields(writer, a); }, attrs);
}

Attrs read_attrs(ByteReader& r, OpKind op) {
    const size_t index = r.u8("attrs alternative");
    const size_t want = attrs_index(op);
    r.check(index == want, "{} node has attrs alternative {}, expected {}", op_name(op), index, want);
    return read_alternative(r, index);
}

}  // namespace strata::build

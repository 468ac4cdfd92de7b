import Tracing

/// What the span of a request records besides its name, as plain values: OpenTelemetry's
/// HTTP server attributes (`http.request.method`, `http.route`, `url.scheme`, and
/// `http.response.status_code` once answered). Every request makes such a span, and these
/// fields cost it no attribute dictionary (hashing, a box per value) while it runs; they
/// become attributes when it is exported, or when its attributes are asked for.
struct RequestSpanFields: Sendable, Hashable {
    /// The method, as the metrics label it (``ServerMetrics/label(method:)``).
    var method: String
    /// The route's template, never the path.
    var route: String
    /// `http` or `https`.
    var scheme: String
    /// The answer's status, once there is one.
    var status: Int?

    /// The span's name: the method and the route's template.
    var name: String { "\(method) \(route)" }

    /// The fields as attributes, each under its OpenTelemetry name, in a fixed order.
    func forEach(_ body: (String, SpanAttribute) -> Void) {
        body("http.request.method", .string(method))
        body("http.route", .string(route))
        body("url.scheme", .string(scheme))
        if let status { body("http.response.status_code", .int64(Int64(status))) }
    }

    /// `attributes` with the fields added.
    func adding(to attributes: SpanAttributes) -> SpanAttributes {
        var attributes = attributes
        forEach { key, value in attributes[key] = value }
        return attributes
    }
}

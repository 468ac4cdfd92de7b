import GangwayProtocol

/// A question to a ``LocalEntityStore``: the entities of one set that pass every filter,
/// in an order, a page at a time.
///
/// ```swift
/// let open = LocalQuery("checks", where: [.init("stand", .equals, "12"), .init("status", .equals, "open")],
///                       sortedBy: [.init("due", descending: true)], limit: 20)
/// ```
public struct LocalQuery: Sendable, Hashable {
    /// One condition on a field: its value compared with `value`, as the field's type
    /// compares (numbers as numbers, times as times, the rest as text). An entity without
    /// a value for the field passes no comparison but `notEquals`.
    public struct Filter: Sendable, Hashable {
        public enum Comparison: String, Sendable, Hashable, CaseIterable {
            case equals = "="
            case notEquals = "!="
            case less = "<"
            case lessOrEqual = "<="
            case greater = ">"
            case greaterOrEqual = ">="
        }

        public var field: String
        public var comparison: Comparison
        public var value: String

        public init(_ field: String, _ comparison: Comparison, _ value: String) {
            self.field = field
            self.comparison = comparison
            self.value = value
        }
    }

    /// An order: by a field (or `id`), ascending unless `descending`. Entities without a
    /// value for the field come first ascending, last descending; ties go by ID.
    public struct Order: Sendable, Hashable {
        public var field: String
        public var descending: Bool

        public init(_ field: String, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
    }

    public var entitySet: String
    public var filters: [Filter]
    public var order: [Order]
    /// At most this many entities; `nil`: all.
    public var limit: Int?
    /// Skip this many first.
    public var offset: Int

    public init(
        _ entitySet: String,
        where filters: [Filter] = [],
        sortedBy order: [Order] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) {
        self.entitySet = entitySet
        self.filters = filters
        self.order = order
        self.limit = limit
        self.offset = offset
    }
}

/// Why a ``LocalQuery`` cannot be answered: a sentence that names the field, never an
/// entity's value. New cases may be added.
public struct LocalQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}

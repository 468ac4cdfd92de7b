import Foundation

/// One SQL statement and its values, written once for both databases.
///
/// Values are interpolated (`"SELECT name FROM users WHERE username = \(username)"`) and
/// bound, never spliced into the text; each ``StorageDriver`` renders the placeholders
/// its database takes (`?` or `$1`). Text that is SQL itself (a column list, a fragment
/// written elsewhere) is interpolated as `\(sql)` or `\(unescaped: text)`, and lists for
/// `IN` as `\(list: values)`.
public struct SQL: Sendable, ExpressibleByStringInterpolation {
    enum Part: Sendable {
        case text(String)
        case value(SQLValue)
    }

    var parts: [Part]

    public init(stringLiteral value: String) {
        parts = [.text(value)]
    }

    public init(stringInterpolation: Interpolation) {
        parts = stringInterpolation.parts
    }

    public struct Interpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(2 * interpolationCount + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            parts.append(.text(literal))
        }

        /// A value, bound.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            parts.append(.value(value.sqlValue))
        }

        /// A value or `NULL`, bound.
        public mutating func appendInterpolation(_ value: (some SQLBindable)?) {
            parts.append(.value(value?.sqlValue ?? .null))
        }

        /// Values separated by commas, each bound: for `IN (…)` and `VALUES (…)`.
        public mutating func appendInterpolation(list values: [some SQLBindable]) {
            for (index, value) in values.enumerated() {
                if index > 0 { parts.append(.text(", ")) }
                parts.append(.value(value.sqlValue))
            }
        }

        /// Texts bound as one array (``SQLValue/texts(_:)``).
        public mutating func appendInterpolation(array values: [String]) {
            parts.append(.value(.texts(values)))
        }

        /// Integers bound as one array (``SQLValue/integers(_:)``).
        public mutating func appendInterpolation(array values: [Int64]) {
            parts.append(.value(.integers(values)))
        }

        /// Another statement's text and values, in place.
        public mutating func appendInterpolation(_ sql: SQL) {
            parts += sql.parts
        }

        /// Text that is SQL already (a name from this module, never from a request).
        public mutating func appendInterpolation(unescaped text: String) {
            parts.append(.text(text))
        }
    }

    /// `lhs` followed by `rhs`.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var joined = lhs
        joined.parts += rhs.parts
        return joined
    }

    /// The statements joined by `separator`: rows of a `VALUES` list, conditions.
    public static func joined(_ statements: [SQL], separator: String) -> SQL {
        var joined = SQL(stringLiteral: "")
        for (index, statement) in statements.enumerated() {
            if index > 0 { joined.parts.append(.text(separator)) }
            joined.parts += statement.parts
        }
        return joined
    }

    /// The text with a placeholder per value (`placeholder(1)` for the first), and the
    /// values in order.
    public func rendered(placeholder: (Int) -> String) -> (text: String, values: [SQLValue]) {
        var text = ""
        var values: [SQLValue] = []
        for part in parts {
            switch part {
            case .text(let fragment):
                text += fragment
            case .value(let value):
                values.append(value)
                text += placeholder(values.count)
            }
        }
        return (text, values)
    }
}

/// A value as both databases store it. Dates are whole milliseconds since 1970, so a
/// row means the same in SQLite and PostgreSQL.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob(Data)
    case bool(Bool)
    /// Texts bound as one array (`$1::text[]`), for PostgreSQL's `unnest` and `= ANY`:
    /// thousands of rows in one value, not one bound value each. SQLite takes them as a
    /// JSON array.
    case texts([String])
    /// Integers bound as one array (`$1::bigint[]`), as ``texts(_:)``.
    case integers([Int64])
}

/// A Swift value a statement can bind.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Data: SQLBindable {
    public var sqlValue: SQLValue { .blob(self) }
}

extension Bool: SQLBindable {
    public var sqlValue: SQLValue { .bool(self) }
}

extension Date: SQLBindable {
    /// Whole milliseconds since 1970.
    public var sqlValue: SQLValue { .integer(milliseconds) }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

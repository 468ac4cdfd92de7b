import Foundation

/// One row a statement returned, its cells by column name, as either database gave them.
///
/// A record is read from a row once, for both databases: ``decode(_:)`` reads a record by
/// its coding keys, and `try row("username")` one cell, as the type wanted (a date from
/// its milliseconds, a flag from SQLite's integer or PostgreSQL's boolean); a cell that is
/// not of that type throws ``StorageError/Code/corrupt``.
public struct SQLRow: Sendable {
    /// The columns of the statement's result, shared by its rows.
    let columns: [String]
    let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The cell of `column`, as `T`.
    public func callAsFunction<T: SQLColumnValue>(_ column: String, as type: T.Type = T.self) throws(StorageError) -> T
    {
        guard let index = columns.firstIndex(of: column) else {
            throw StorageError(.corrupt, "a stored row has no column \(column)")
        }
        guard let value = T(sqlValue: values[index]) else {
            throw StorageError(.corrupt, "a stored row's \(column) cannot be read")
        }
        return value
    }
}

/// A type a cell can be read as.
public protocol SQLColumnValue {
    /// `nil` when the cell does not hold this type.
    init?(sqlValue: SQLValue)
}

extension String: SQLColumnValue {
    public init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue else { return nil }
        self = text
    }
}

extension Int64: SQLColumnValue {
    public init?(sqlValue: SQLValue) {
        guard case .integer(let integer) = sqlValue else { return nil }
        self = integer
    }
}

extension Int: SQLColumnValue {
    public init?(sqlValue: SQLValue) {
        guard case .integer(let integer) = sqlValue, let value = Int(exactly: integer) else { return nil }
        self = value
    }
}

extension Data: SQLColumnValue {
    public init?(sqlValue: SQLValue) {
        guard case .blob(let data) = sqlValue else { return nil }
        self = data
    }
}

extension Bool: SQLColumnValue {
    /// PostgreSQL's boolean, or SQLite's 0 and 1.
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .bool(let flag): self = flag
        case .integer(0): self = false
        case .integer(1): self = true
        default: return nil
        }
    }
}

extension Date: SQLColumnValue {
    /// From whole milliseconds since 1970.
    public init?(sqlValue: SQLValue) {
        guard case .integer(let milliseconds) = sqlValue else { return nil }
        self.init(milliseconds: milliseconds)
    }
}

extension Optional: SQLColumnValue where Wrapped: SQLColumnValue {
    /// `nil` for `NULL`; otherwise the wrapped type's reading.
    public init?(sqlValue: SQLValue) {
        if sqlValue == .null {
            self = .none
        } else if let value = Wrapped(sqlValue: sqlValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

import Foundation

extension SQL {
    /// `INSERT INTO table (…) VALUES (…)` of `record`: each of its coding keys is the
    /// column of the same name in snake case (``SQLRow/column(for:)``), as
    /// ``SQLRow/decode(_:)`` reads it back, and each value is bound. A `nil` is written as
    /// `NULL`, so every column the record has is named, except an `id` the record has not
    /// got yet: the database numbers the row (logs, audit events).
    ///
    /// - Parameters:
    ///   - upsertingOn: Key columns: a row with the same keys is replaced, each other
    ///     column set to the record's (`ON CONFLICT (…) DO UPDATE SET …`),
    ///   - keeping: except these, which keep what the row had (when it was created).
    public static func insert(
        into table: String,
        _ record: some Encodable,
        upsertingOn keys: [String] = [],
        keeping kept: [String] = []
    ) throws(StorageError) -> SQL {
        let cells = try SQLRow.insertedCells(of: record)
        let columns = cells.map(\.column)
        var sql: SQL = "INSERT INTO \(unescaped: table) (\(unescaped: columns.joined(separator: ", ")))"
        sql = sql + " VALUES (\(list: cells.map(\.value)))"
        if !keys.isEmpty {
            let set = columns.filter { !keys.contains($0) && !kept.contains($0) }.map { "\($0) = excluded.\($0)" }
            sql =
                sql
                + " ON CONFLICT (\(unescaped: keys.joined(separator: ", "))) DO UPDATE SET \(unescaped: set.joined(separator: ", "))"
        }
        return sql
    }

    /// One `INSERT INTO table (…) VALUES (…), (…), …` of `records`, each written as
    /// ``insert(into:_:upsertingOn:keeping:)`` writes one: a batch takes one round trip to
    /// the database, not one a row. The records must name the same columns (records of one
    /// type without an `id` do); a batch that does not is refused with
    /// ``StorageError/Code/unavailable``. Keep a batch to at most ``rowsPerStatement`` rows:
    /// each value is one bound parameter, and databases bound how many a statement takes.
    public static func insert(
        into table: String,
        rows records: some Collection<some Encodable>
    ) throws(StorageError)
        -> SQL
    {
        var columns: [String]?
        var rows: [SQL] = []
        for record in records {
            let cells = try SQLRow.insertedCells(of: record)
            let named = cells.map(\.column)
            if columns == nil { columns = named }
            guard named == columns else {
                throw StorageError(.unavailable, "the rows of one insert into \(table) name different columns")
            }
            rows.append("(\(list: cells.map(\.value)))")
        }
        guard let columns else { throw StorageError(.unavailable, "an insert into \(table) has no row") }
        return "INSERT INTO \(unescaped: table) (\(unescaped: columns.joined(separator: ", "))) VALUES "
            + .joined(rows, separator: ", ")
    }

    /// How many rows one statement that writes many carries at most: its bound values
    /// stay far under what SQLite (32,766) and PostgreSQL (65,535) take, for rows of up to
    /// a hundred columns.
    public static let rowsPerStatement = 200
}

extension SQLRow {
    /// The cells an insert of `record` writes: all of ``cells(of:)`` but an `id` it has not
    /// got yet, which the database numbers.
    static func insertedCells(of record: some Encodable) throws(StorageError) -> [(column: String, value: SQLValue)] {
        try cells(of: record).filter { $0.column != "id" || $0.value != .null }
    }

    /// The cells `record` is stored as, in the order of its coding keys: each key's column
    /// (in snake case) and its value as bound.
    static func cells(of record: some Encodable) throws(StorageError) -> [(column: String, value: SQLValue)] {
        let encoder = RowEncoder()
        do {
            try record.encode(to: encoder)
        } catch {
            throw StorageError(.unavailable, "a \(type(of: record)) cannot be stored as a row")
        }
        if let column = encoder.cells.refused {
            throw StorageError(.unavailable, "a \(type(of: record))'s \(column) cannot be stored in one cell")
        }
        return encoder.cells.cells
    }
}

/// Writes a record as one row's cells, for ``SQL/insert(into:_:upsertingOn:keeping:)``. What a
/// cell cannot hold (a list, a nested record, a number that is not an integer) is
/// refused with ``StorageError/Code/unavailable`` when the encoding ends, naming the
/// column: the record is not one this module stores.
private final class RowEncoder: Encoder {
    /// What the containers write to: they are values, the row is one.
    final class Cells {
        var cells: [(column: String, value: SQLValue)] = []
        /// The first column that cannot be stored.
        var refused: String?
    }

    let cells = Cells()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Columns<Key>(cells: cells))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        Refused(cells: cells, column: "row")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Refused(cells: cells, column: "row")
    }

    /// The row's cells by key.
    struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let cells: Cells
        var codingPath: [any CodingKey] { [] }

        func encodeNil(forKey key: Key) throws {
            cells.cells.append((SQLRow.column(for: key.stringValue), .null))
        }

        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let column = SQLRow.column(for: key.stringValue)
            let cell = Cell(cells: cells, column: column)
            try cell.encode(value)
            guard let stored = cell.value else {
                cells.refused = cells.refused ?? column
                return
            }
            cells.cells.append((column, stored))
        }

        // A nil is a NULL the row holds, never a column left out: an upsert sets it too.
        func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }
        func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }

        private func present<T: Encodable>(_ value: T?, _ key: Key) throws {
            try encodeIfPresent(value, forKey: key)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            Refused(cells: cells, column: SQLRow.column(for: key.stringValue)).container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Refused(cells: cells, column: SQLRow.column(for: key.stringValue))
        }

        func superEncoder() -> any Encoder { Refused(cells: cells, column: "super") }

        func superEncoder(forKey key: Key) -> any Encoder {
            Refused(cells: cells, column: SQLRow.column(for: key.stringValue))
        }
    }

    /// One cell, for a type that stores itself as a single value (an enumeration of
    /// stored names, a wrapper of a column type): the value it gives, once it is one a
    /// statement binds.
    final class Cell: Encoder, SingleValueEncodingContainer {
        let cells: Cells
        let column: String
        private(set) var value: SQLValue?
        /// How deep a value's own encoding has gone: a value that encodes itself as
        /// itself (a number that is not an integer) would never end.
        private var depth = 0
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        init(cells: Cells, column: String) {
            self.cells = cells
            self.column = column
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            Refused(cells: cells, column: column).container(keyedBy: type)
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer { Refused(cells: cells, column: column) }

        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        func encodeNil() throws { value = .null }

        func encode<T: Encodable>(_ value: T) throws {
            if let bindable = value as? any SQLBindable {
                self.value = bindable.sqlValue
            } else if depth < 4 {
                depth += 1
                defer { depth -= 1 }
                try value.encode(to: self)
            }
        }
    }

    /// Where what a cell cannot hold goes: nothing is written, and the column is named
    /// as refused.
    struct Refused: Encoder, UnkeyedEncodingContainer, SingleValueEncodingContainer {
        let cells: Cells
        let column: String
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var count: Int { 0 }

        init(cells: Cells, column: String) {
            self.cells = cells
            self.column = column
            cells.refused = cells.refused ?? column
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Columns<Key>(cells: Cells()))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer { self }
        func singleValueContainer() -> any SingleValueEncodingContainer { self }
        func encodeNil() throws {}
        func encode<T: Encodable>(_ value: T) throws {}

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        func superEncoder() -> any Encoder { self }
    }
}

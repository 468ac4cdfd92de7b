import Foundation

extension SQLRow {
    /// The row as a record: each of the record's coding keys is read from the column of
    /// the same name in snake case (`registrationID` from `registration_id`,
    /// `lastTOTPStep` from `last_totp_step`), as ``callAsFunction(_:as:)`` reads a cell, and
    /// a value of another `Decodable` type (an enumeration of stored names) from its cell.
    ///
    /// A record whose property is named otherwise than its column says so in its
    /// `CodingKeys`. A missing column, or a cell that is not of its property's type,
    /// throws ``StorageError/Code/corrupt`` naming the column, never its value.
    public func decode<Record: Decodable>(_ type: Record.Type = Record.self) throws(StorageError) -> Record {
        do {
            return try Record(from: RowDecoder(row: self))
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.corrupt, "a stored row cannot be read as \(Record.self)")
        }
    }

    /// The column a coding key names: its name in snake case.
    static func column(for key: String) -> String {
        var column = ""
        let characters = Array(key)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                // A word starts at an upper-case letter after a lower-case one, or at the
                // last capital of a run that a lower-case letter follows (TOTPStep).
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    column.append("_")
                }
            }
            column.append(contentsOf: character.lowercased())
        }
        return column
    }
}

/// Reads a record from one row, for ``SQLRow/decode(_:)``.
private struct RowDecoder: Decoder {
    let row: SQLRow
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns<Key>(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StorageError(.corrupt, "a stored row is not a list")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw StorageError(.corrupt, "a stored row is not one value")
    }

    /// The row's cells by key.
    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: SQLRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columns.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool {
            row.columns.contains(SQLRow.column(for: key.stringValue))
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            try cell(key) == .null
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let column = SQLRow.column(for: key.stringValue)
            if let cellType = type as? any SQLColumnValue.Type {
                guard let value = try read(cellType, column) as? T else { throw Cell.unreadable(column) }
                return value
            }
            return try T(from: Cell(value: try cell(key), column: column))
        }

        private func read<Value: SQLColumnValue>(_ type: Value.Type, _ column: String) throws -> Value {
            try row(column, as: type)
        }

        private func cell(_ key: Key) throws -> SQLValue {
            let column = SQLRow.column(for: key.stringValue)
            guard let index = row.columns.firstIndex(of: column) else {
                throw StorageError(.corrupt, "a stored row has no column \(column)")
            }
            return row.values[index]
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            throw StorageError(.corrupt, "a stored row's \(SQLRow.column(for: key.stringValue)) is not a row")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw StorageError(.corrupt, "a stored row's \(SQLRow.column(for: key.stringValue)) is not a list")
        }

        func superDecoder() throws -> any Decoder { RowDecoder(row: row) }

        func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }
    }

    /// One cell, for a type that reads itself from a single value (an enumeration of
    /// stored names, a wrapper of a column type).
    struct Cell: Decoder, SingleValueDecodingContainer {
        let value: SQLValue
        let column: String
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            throw unreadable
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw unreadable }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if let cellType = type as? any SQLColumnValue.Type {
                guard let decoded = cellType.init(sqlValue: value) as? T else { throw Self.unreadable(column) }
                return decoded
            }
            return try T(from: self)
        }

        private var unreadable: StorageError { Self.unreadable(column) }

        static func unreadable(_ column: String) -> StorageError {
            StorageError(.corrupt, "a stored row's \(column) cannot be read")
        }
    }
}

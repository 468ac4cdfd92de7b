import Foundation
import GangwayProtocol

/// A column of values sealed under the server key, in rows named by `keys`: what a
/// replacement of the key reads and seals anew, a row at a time.
public struct SealedColumn: Sendable, Hashable {
    public var table: String
    public var column: String
    /// The columns that name a row (and make up what its value is sealed for).
    public var keys: [String]

    public init(table: String, column: String, keys: [String]) {
        self.table = table
        self.column = column
        self.keys = keys
    }
}

/// One sealed value of a ``SealedColumn`` and the row it is in.
public struct SealedCell: Sendable {
    /// The row's ``SealedColumn/keys``, to read as any row is read.
    public var row: SQLRow
    public var value: Data
}

extension ServerStorage {
    // MARK: Sealed values

    /// Every value `column` holds (its `NULL`s aside), with the keys of its row.
    public func sealedCells(_ column: SealedColumn) async throws(StorageError) -> [SealedCell] {
        let names = column.keys.joined(separator: ", ")
        let rows = try await queries.read(
            """
            SELECT \(unescaped: names), \(unescaped: column.column) AS sealed_value FROM \(unescaped: column.table)
            WHERE \(unescaped: column.column) IS NOT NULL
            """
        )
        return try rows.map { row throws(StorageError) in
            let keys = SQLRow(columns: column.keys, values: Array(row.values.prefix(column.keys.count)))
            return SealedCell(row: keys, value: try row("sealed_value", as: Data.self))
        }
    }

    /// Replaces `cell`'s value with `value`, unless it has changed since it was read;
    /// whether it was replaced. Drops every cached read of the kinds that hold sealed
    /// values.
    public func replaceSealedCell(
        _ column: SealedColumn,
        _ cell: SealedCell,
        with value: Data
    ) async throws(StorageError) -> Bool {
        var statement: SQL =
            "UPDATE \(unescaped: column.table) SET \(unescaped: column.column) = \(value) WHERE \(unescaped: column.column) = \(cell.value)"
        for (name, key) in zip(cell.row.columns, cell.row.values) {
            statement = statement + " AND \(unescaped: name) = \(key)"
        }
        let drops: [ReadCache.Drop] = [.every(.device), .every(.destination), .every(.signingKeys), .every(.app)]
        return try await writing(forgetting: drops) { () throws(StorageError) in
            try await count(statement + " RETURNING 1 AS replaced") == 1
        }
    }
}

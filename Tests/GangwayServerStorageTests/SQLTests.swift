import Foundation
import Testing

@testable import GangwayServerStorage

@Suite("A statement binds every value, and a row reads each cell as its record wants or says it cannot")
struct SQLTests {
    @Test("values are bound in order, each database with its own placeholders; text never enters the statement")
    func valuesAreBound() {
        let name = "x'); DROP TABLE users; --"
        let statement: SQL =
            "SELECT 1 FROM users WHERE username = \(name) AND id IN (\(list: [1, 2])) AND seen < \(Date(timeIntervalSince1970: 1.5))"
        let sqlite = statement.rendered { _ in "?" }
        #expect(sqlite.text == "SELECT 1 FROM users WHERE username = ? AND id IN (?, ?) AND seen < ?")
        #expect(sqlite.values == [.text(name), .integer(1), .integer(2), .integer(1500)])
        let postgres = statement.rendered { "$\($0)" }
        #expect(postgres.text == "SELECT 1 FROM users WHERE username = $1 AND id IN ($2, $3) AND seen < $4")
        let none: String? = nil
        let joined = SQL.joined(["(\(1))", "(\(none))"], separator: ", ") + " END"
        #expect(joined.rendered { _ in "?" }.text == "(?), (?) END")
        #expect(joined.rendered { _ in "?" }.values == [.integer(1), .null])
    }

    @Test("a cell reads as its type: milliseconds as a date, 0 and 1 or a boolean as a flag, NULL as nil")
    func cellsRead() throws {
        let row = SQLRow(
            columns: ["name", "at", "flag", "pg_flag", "missing_value"],
            values: [.text("alice"), .integer(1_500), .integer(1), .bool(false), .null]
        )
        #expect(try row("name", as: String.self) == "alice")
        #expect(try row("at", as: Date.self) == Date(timeIntervalSince1970: 1.5))
        #expect(try row("flag", as: Bool.self))
        #expect(try row("pg_flag", as: Bool.self) == false)
        #expect(try row("missing_value", as: String?.self) == nil)
        #expect(try row("name", as: String?.self) == "alice")
    }

    @Test("a cell of another type, a flag other than 0 or 1, NULL where a value must be, or no such column: corrupt")
    func badCellsAreCorrupt() {
        let row = SQLRow(columns: ["name", "flag", "empty"], values: [.text("alice"), .integer(2), .null])
        expectCorrupt { () throws(StorageError) in try row("name", as: Int64.self) }
        expectCorrupt { () throws(StorageError) in try row("flag", as: Bool.self) }
        expectCorrupt { () throws(StorageError) in try row("empty", as: String.self) }
        expectCorrupt { () throws(StorageError) in try row("name", as: Int?.self) }
        expectCorrupt { () throws(StorageError) in try row("nowhere", as: String.self) }
    }

    /// A record as storage reads one: names in camel case, an enumeration of stored names,
    /// optionals.
    struct Shift: Codable, Equatable {
        enum Kind: String, Codable { case day, night }
        var registrationID: String
        var lastTOTPStep: Int64?
        var kind: Kind
        var startsAt: Date
        var note: String?
        var open: Bool
    }

    @Test("a record reads each coding key from its column in snake case, NULL as nil, a stored name as its case")
    func recordsDecode() throws {
        let row = SQLRow(
            columns: ["registration_id", "last_totp_step", "kind", "starts_at", "note", "open", "extra"],
            values: [.text("r-1"), .integer(7), .text("night"), .integer(1_500), .null, .integer(1), .text("-")]
        )
        #expect(
            try row.decode(Shift.self)
                == Shift(
                    registrationID: "r-1",
                    lastTOTPStep: 7,
                    kind: .night,
                    startsAt: Date(timeIntervalSince1970: 1.5),
                    note: nil,
                    open: true
                )
        )
        #expect(SQLRow.column(for: "appID") == "app_id")
        #expect(SQLRow.column(for: "sealedTOTPSecret") == "sealed_totp_secret")
        #expect(SQLRow.column(for: "expiresInNDays") == "expires_in_n_days")
        #expect(SQLRow.column(for: "id") == "id")
    }

    @Test("a record with a missing column, an unknown stored name or a cell of another type is corrupt")
    func badRecordsAreCorrupt() {
        let columns = ["registration_id", "last_totp_step", "kind", "starts_at", "note", "open"]
        let good: [SQLValue] = [.text("alice"), .null, .text("day"), .integer(0), .null, .bool(true)]
        expectCorrupt { () throws(StorageError) in
            try SQLRow(columns: Array(columns.dropLast()), values: Array(good.dropLast())).decode(Shift.self)
        }
        var unknownKind = good
        unknownKind[2] = .text("dusk")
        expectCorrupt { () throws(StorageError) in try SQLRow(columns: columns, values: unknownKind).decode(Shift.self)
        }
        var textDate = good
        textDate[3] = .text("alice")
        expectCorrupt { () throws(StorageError) in try SQLRow(columns: columns, values: textDate).decode(Shift.self) }
        var nullName = good
        nullName[0] = .null
        expectCorrupt { () throws(StorageError) in try SQLRow(columns: columns, values: nullName).decode(Shift.self) }
    }

    @Test(
        "a record is stored as its coding keys' columns in snake case, in order, a nil as NULL; read back, it is the same"
    )
    func recordsEncode() throws {
        let shift = Shift(
            registrationID: "r-1",
            lastTOTPStep: nil,
            kind: .night,
            startsAt: Date(timeIntervalSince1970: 1.5),
            note: "it's '; DROP TABLE shifts",
            open: true
        )
        let cells = try SQLRow.cells(of: shift)
        #expect(cells.map(\.column) == ["registration_id", "last_totp_step", "kind", "starts_at", "note", "open"])
        #expect(
            cells.map(\.value) == [
                .text("r-1"), .null, .text("night"), .integer(1_500), .text("it's '; DROP TABLE shifts"), .bool(true),
            ]
        )
        // What is stored reads back as the record.
        #expect(try SQLRow(columns: cells.map(\.column), values: cells.map(\.value)).decode(Shift.self) == shift)

        let insert = try SQL.insert(into: "shifts", shift).rendered { "$\($0)" }
        #expect(
            insert.text == "INSERT INTO shifts (registration_id, last_totp_step, kind, starts_at, note, open)"
                + " VALUES ($1, $2, $3, $4, $5, $6)"
        )
        #expect(insert.values == cells.map(\.value), "every value bound, none in the text")
        let upsert = try SQL.insert(into: "shifts", shift, upsertingOn: ["registration_id"]).rendered { _ in "?" }
        #expect(
            upsert.text.hasSuffix(
                " ON CONFLICT (registration_id) DO UPDATE SET last_totp_step = excluded.last_totp_step,"
                    + " kind = excluded.kind, starts_at = excluded.starts_at, note = excluded.note, open = excluded.open"
            ),
            "\(upsert.text)"
        )
        // What an upsert keeps (when a row was made) it does not set.
        let keeping = try SQL.insert(
            into: "shifts",
            shift,
            upsertingOn: ["registration_id"],
            keeping: ["kind", "starts_at"]
        )
        .rendered { _ in "?" }
        #expect(
            keeping.text.hasSuffix(
                " ON CONFLICT (registration_id) DO UPDATE SET last_totp_step = excluded.last_totp_step,"
                    + " note = excluded.note, open = excluded.open"
            ),
            "\(keeping.text)"
        )
    }

    /// A row the database numbers.
    struct Entry: Encodable {
        var id: Int64?
        var message = "checked"
    }

    @Test("an id a record has not got yet is left to the database; one it has is stored as any column")
    func numberedRows() throws {
        let new = try SQL.insert(into: "logs", Entry(id: nil)).rendered { _ in "?" }
        #expect(new.text == "INSERT INTO logs (message) VALUES (?)")
        #expect(new.values == [.text("checked")])
        let kept = try SQL.insert(into: "logs", Entry(id: 7)).rendered { _ in "?" }
        #expect(kept.text == "INSERT INTO logs (id, message) VALUES (?, ?)")
        #expect(kept.values == [.integer(7), .text("checked")])
    }

    @Test("many records are one statement, a row of values each; rows naming other columns, or none, are refused")
    func manyRows() throws {
        let batch = try SQL.insert(into: "logs", rows: [Entry(id: nil), Entry(id: nil, message: "synced")])
            .rendered { "$\($0)" }
        #expect(batch.text == "INSERT INTO logs (message) VALUES ($1), ($2)")
        #expect(batch.values == [.text("checked"), .text("synced")])
        // One with an ID among those without names another column: not one statement.
        #expect(throws: StorageError.self) { try SQL.insert(into: "logs", rows: [Entry(id: nil), Entry(id: 7)]) }
        #expect(throws: StorageError.self) { try SQL.insert(into: "logs", rows: [Entry]()) }
    }

    /// What a row's cell cannot hold.
    struct Roster: Encodable {
        var name = "night crew"
        var members = ["alice", "bob"]
    }

    struct Reading: Encodable {
        var pressure = 8.5
    }

    struct Nested: Encodable {
        var shift = Shift(
            registrationID: "r",
            lastTOTPStep: 1,
            kind: .day,
            startsAt: Date(),
            note: nil,
            open: false
        )
    }

    @Test("a list, a number that is not an integer or a nested record is refused, naming the column, never stored")
    func unstorableRecordsAreRefused() {
        for (record, column) in [(Roster() as any Encodable, "members"), (Reading(), "pressure"), (Nested(), "shift")] {
            do {
                _ = try SQL.insert(into: "t", record)
                Issue.record("\(type(of: record)) was stored")
            } catch {
                #expect(error.message.contains(column) && error.code == .unavailable, "\(error)")
            }
        }
    }

    private func expectCorrupt<T>(
        _ read: () throws(StorageError) -> T,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try read()
            Issue.record("the cell was read", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .corrupt, sourceLocation: sourceLocation)
            #expect(!error.message.contains("alice"), "no stored value in the message", sourceLocation: sourceLocation)
        }
    }
}

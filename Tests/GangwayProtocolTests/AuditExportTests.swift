import Foundation
import GangwayProtocol
import Testing

@Suite("The audit's CSV: a header, an event a line, quoted where needed, never a formula")
struct AuditExportTests {
    @Test("the API's events are written a line each, via as the API names it, a missing field empty")
    func events() {
        let events = [
            Components.Schemas.AuditEvent(
                id: 8,
                at: Date(timeIntervalSince1970: 1_800_000_060),
                actor: "admin",
                via: .api,
                action: "wipeDevice",
                target: "=cmd",
                address: "127.0.0.1",
                detail: nil
            ),
            Components.Schemas.AuditEvent(
                id: 7,
                at: Date(timeIntervalSince1970: 1_800_000_000),
                actor: "ops.alice",
                via: .console,
                action: "updateUser",
                target: nil,
                address: nil,
                detail: "a, b"
            ),
        ]
        #expect(
            AuditExport.csv(events)
                == "id,at,actor,via,action,target,address,detail\n"
                + "8,2027-01-15T08:01:00Z,admin,api,wipeDevice,'=cmd,127.0.0.1,\n"
                + "7,2027-01-15T08:00:00Z,ops.alice,console,updateUser,,,\"a, b\""
        )
    }

    @Test("a line has the header's fields in order, the time in ISO 8601")
    func line() {
        let line = AuditExport.line(
            id: 7,
            at: Date(timeIntervalSince1970: 1_800_000_000),
            fields: [
                "ops.alice", "console", "updateUser", "/admin/users/alice", nil, "blocked: false → true; password set",
            ]
        )
        #expect(
            line
                == "7,2027-01-15T08:00:00Z,ops.alice,console,updateUser,/admin/users/alice,,blocked: false → true; password set"
        )
        #expect(AuditExport.csv([line]) == "id,at,actor,via,action,target,address,detail\n" + line)
    }

    @Test(
        "a cell that a spreadsheet would read as a formula starts with a quote mark; commas, quotes and line breaks are quoted",
        arguments: [
            ("=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""), ("+1", "'+1"), ("-2", "'-2"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"), ("a,b", "\"a,b\""), ("two\nlines", "\"two\nlines\""), ("plain", "plain"), ("", ""),
        ]
    )
    func cells(text: String, cell: String) {
        #expect(AuditExport.cell(text) == cell)
    }
}

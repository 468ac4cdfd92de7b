import Foundation
import GangwayProtocol
import GangwayServerStorage
import Testing

@testable import GangwayServer

@Suite("An OData v4 JSON page reads into entities, removals and links, and refuses a row alone, never the page")
struct ODataPageTests {
    static func read(_ text: String, key: String = "ID") throws(ODataPage.Unreadable) -> ODataPage {
        let outcome = Array(text.utf8).withUnsafeBytes { buffer in
            Result { () throws(ODataPage.Unreadable) in try ODataPage.read(buffer, keyProperty: key) }
        }
        return try outcome.get()
    }

    @Test(
        "values become fields as written: numbers' text, booleans' words; null, annotations and the key are no fields"
    )
    func values() throws {
        let page = try Self.read(
            #"""
            {"@odata.context": "$metadata#Checks", "value": [
              {"@odata.etag": "W/\"1\"", "ID": "C-1", "Pressure": 2.50, "Count": -3, "Big": 1e400, "Signed": true,
               "Open": false, "Note": null, "Note@odata.type": "#String", "Text": "say \"hi\" ✈️"},
              {"ID": 42, "Status": "open"}
            ], "@odata.nextLink": "https://erp.example.com/odata/Checks?$skiptoken=2"}
            """#
        )
        #expect(
            page.rows == [
                .entity(
                    id: "C-1",
                    fields: [
                        "Pressure": "2.50", "Count": "-3", "Big": "1e400", "Signed": "true", "Open": "false",
                        "Text": "say \"hi\" ✈️",
                    ]
                ),
                .entity(id: "42", fields: ["Status": "open"]),
            ]
        )
        #expect(page.nextLink == "https://erp.example.com/odata/Checks?$skiptoken=2" && page.deltaLink == nil)
    }

    @Test("removed entities in 4.01's and 4.0's forms, named by key or by their @id")
    func removals() throws {
        let page = try Self.read(
            #"""
            {"value": [
              {"@removed": {"reason": "deleted"}, "@id": "Checks('C-1')"},
              {"@removed": {"reason": "changed"}, "ID": "C-2"},
              {"@odata.removed": {"reason": "deleted"}, "@odata.id": "https://erp.example.com/odata/Checks(7)"},
              {"@odata.context": "$metadata#Checks/$deletedEntity", "@odata.removed": {}, "id": "Checks(ID='O''Neil')"},
              {"@removed": {}, "@id": "Checks(A=1,B=2)"}
            ], "@odata.deltaLink": "Checks?$deltatoken=9"}
            """#
        )
        #expect(
            page.rows == [
                .removed(id: "C-1"), .removed(id: "C-2"), .removed(id: "7"), .removed(id: "O'Neil"),
                .refused(id: "", code: "INVALID_LINE", message: "A removed entity names no key."),
            ]
        )
        #expect(page.deltaLink == "Checks?$deltatoken=9" && page.nextLink == nil)
        #expect(ODataPage.keyInLink("Checks('')") == nil)
        #expect(ODataPage.keyInLink("Checks('a%2Fb')") == "a/b")
        #expect(ODataPage.keyInLink("Checks") == nil)
    }

    @Test("a row without its key, or with a nested value, is refused alone, naming the property, never a value")
    func rowsRefused() throws {
        let page = try Self.read(
            #"""
            {"value": [
              {"Code": "C-1", "Status": "secret-value"},
              {"ID": {"nested": 1}},
              {"ID": "C-3", "Address": {"Street": "secret-street"}, "Tags": ["a"]},
              {"ID": "C-4"}
            ]}
            """#
        )
        #expect(page.rows.count == 4)
        guard case .refused(let id, let code, let message) = page.rows[0] else {
            Issue.record("a row without its key is refused")
            return
        }
        #expect(id == "" && code == "INVALID_LINE" && message.contains("no key property ID"))
        #expect(page.rows[1] == page.rows[0])
        guard case .refused(let nestedID, let nestedCode, let nestedMessage) = page.rows[2] else {
            Issue.record("a nested value is refused")
            return
        }
        #expect(nestedID == "C-3" && nestedCode == "INVALID_FIELD" && nestedMessage.contains("Address"))
        #expect(!"\(page.rows)".contains("secret"), "no value of the backend's in a refusal")
        #expect(page.rows[3] == .entity(id: "C-4", fields: [:]))
    }

    @Test(
        "what is no OData page is unreadable, with a reason that holds none of it",
        arguments: [
            "", "[]", "{\"value\": 1}", "{\"value\": [1]}", "{\"@odata.context\": \"x\"}", "{\"value\": []", "null",
            "{\"value\": [], \"value\": [{\"ID\": \"x\"}], \"x\": 01}",
            "{\"error\": {\"code\": \"Forbidden\", \"message\": \"secret-reason\"}}",
        ]
    )
    func unreadable(text: String) {
        #expect(throws: ODataPage.Unreadable.self) { try Self.read(text) }
        do {
            _ = try Self.read(text)
        } catch {
            #expect(!error.reason.contains("secret"))
        }
    }

    @Test("an empty page reads; a huge page of plain rows reads every row")
    func sizes() throws {
        #expect(try Self.read(#"{"value": []}"#).rows.isEmpty)
        let rows = (0..<20_000).map { #"{"ID": "C-\#($0)", "Pressure": \#($0 % 300), "Open": true}"# }
        let page = try Self.read(#"{"value": [\#(rows.joined(separator: ","))]}"#)
        #expect(page.rows.count == 20_000)
        #expect(page.rows.last == .entity(id: "C-19999", fields: ["Pressure": "199", "Open": "true"]))
    }
}

@Suite("A backend's next and delta links are followed only while they stay under the destination's URL")
struct DataSourceLinkTests {
    static let base = "https://erp.example.com/odata"
    static let page = "https://erp.example.com/odata/Checks?$skiptoken=1"

    @Test(
        "links under the destination, absolute or relative, are followed as the URL they resolve to",
        arguments: [
            ("https://erp.example.com/odata/Checks?$skiptoken=2", "https://erp.example.com/odata/Checks?$skiptoken=2"),
            ("Checks?$deltatoken=9", "https://erp.example.com/odata/Checks?$deltatoken=9"),
            ("/odata/Checks?$skiptoken=3#top", "https://erp.example.com/odata/Checks?$skiptoken=3"),
            ("HTTPS://ERP.example.com:443/odata/Checks", "HTTPS://ERP.example.com:443/odata/Checks"),
            ("https://erp.example.com/odata", "https://erp.example.com/odata"),
        ]
    )
    func followed(link: String, url: String) throws {
        #expect(try DataSourceRead.follow(link, from: Self.page, within: Self.base) == url)
    }

    @Test(
        "links that leave it are refused, whatever their form",
        arguments: [
            "https://attacker.example/odata/Checks", "http://erp.example.com/odata/Checks",
            "https://erp.example.com:8443/odata/Checks", "https://erp.example.com/other/Checks",
            "https://erp.example.com/odata2/Checks", "../admin", "/odata/../admin", "/odata/%2e%2e/admin",
            "/odata/a%2Fb", "https://user:pass@erp.example.com/odata/Checks", "//attacker.example/odata/Checks",
            "https://erp.example.com.attacker.example/odata/Checks",
        ]
    )
    func refused(link: String) {
        #expect(throws: DataSourceRead.Failure.self) {
            try DataSourceRead.follow(link, from: Self.page, within: Self.base)
        }
    }
}

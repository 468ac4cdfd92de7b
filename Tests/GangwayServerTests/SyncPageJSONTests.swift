import Foundation
import GangwayProtocol
import GangwayServerStorage
import NIOCore
import Testing

@testable import GangwayClient
@testable import GangwayServer

@Suite("A sync page written and read by hand is the document the generated code writes and reads")
struct SyncPageJSONTests {
    typealias Changes = Components.Schemas.EntityChanges

    static let awkward = [
        "", "open", "say \"hi\"", "C:\\dir\\", "a/b", "line\nnext\u{1}", "\u{0}", "Zoë", "✈️👩🏽‍🔧", "evil\u{202E}gpj",
    ]

    /// A random page: written entities with awkward texts, removals, in a random order.
    static func randomAnswer(using generator: inout SystemRandomNumberGenerator) -> SyncAnswer {
        var entries: [EntityLogPage.Entry] = []
        for index in 0..<Int.random(in: 0...12, using: &generator) {
            if Int.random(in: 0..<4, using: &generator) == 0 {
                entries.append(.removed(id: "gone-\(index)", position: Int64(index + 1), removedAt: .now))
                continue
            }
            var fields: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                fields[awkward.randomElement(using: &generator)! + "k"] = awkward.randomElement(using: &generator)!
            }
            entries.append(
                .written(
                    EntityRecord(
                        appID: "checks",
                        entitySet: "checks",
                        id: awkward.randomElement(using: &generator)! + "\(index)",
                        fields: fields,
                        version: Int64.random(in: 1...Int64.max, using: &generator),
                        // Whole seconds, from the year 1 to 9999: what the API writes.
                        updatedAt: Date(
                            timeIntervalSince1970: Double(
                                Int64.random(in: -62_135_596_800..<253_402_300_800, using: &generator)
                            )
                        ),
                        updatedBy: awkward.randomElement(using: &generator)!,
                        position: Int.random(in: 0..<3, using: &generator) == 0
                            ? 0 : Int64.random(in: 1...Int64.max, using: &generator)
                    )
                )
            )
        }
        return SyncAnswer(
            entitySet: "checks",
            entries: entries,
            cursor: "1.\(Int.random(in: 0...999_999, using: &generator))",
            more: Bool.random(using: &generator),
            isPart: Bool.random(using: &generator)
        )
    }

    static func scanned(_ bytes: [UInt8]) -> AppDataChanges? {
        bytes.withUnsafeBytes { AppDataChanges.scanned($0) }
    }

    @Test func theServersPageIsTheGeneratedDocumentAndTheDeviceReadsItAsJSONDecoderDoes() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let answer = Self.randomAnswer(using: &generator)
            let written = Array(buffer: answer.json)
            let expected = answer.wire
            // The generated type reads the hand-written page as the page it would have written.
            #expect(try JSONDecoder.gangway.decode(Changes.self, from: Data(written)) == expected)
            // The device's scanner reads it as the generated type does.
            let read = try #require(Self.scanned(written), "\(String(decoding: written, as: UTF8.self))")
            #expect(read == AppDataChanges(expected))
            // And what the generated encoder writes (keys sorted, slashes escaped), too.
            let encoded = Array(try JSONEncoder.gangway.encode(expected))
            #expect(Self.scanned(encoded) == AppDataChanges(expected))
        }
    }

    @Test func theDeviceReadsAnyLayoutOfThePageAsJSONDecoderDoes() throws {
        let documents = [
            // White space, another order of members, members the document does not name,
            // null where a member may be absent.
            """
            { "more" : false, "cursor": "1.2", "future": {"a": [1, true, null, "x"]},
              "removed": [ {"position": 3, "id": "check-9", "at": "now"} ], "part": null,
              "entities": [ {"version": 2, "updatedBy": "alice", "updatedAt": "2026-12-04T10:00:00.250+01:00",
                             "id": "check-1", "position": null, "fields": {"status": "open", "note": "\\u00e9\\/"}} ],
              "entitySet": "checks" }
            """,
            #"{"entitySet":"checks","entities":[],"removed":[],"cursor":"1.0","more":true,"part":true}"#,
        ]
        for document in documents {
            let decoded = try JSONDecoder.gangway.decode(Changes.self, from: Data(document.utf8))
            #expect(Self.scanned(Array(document.utf8)) == AppDataChanges(decoded), "\(document)")
        }
    }

    @Test func whatTheScannerLeavesIsReadByJSONDecoderOrRefused() throws {
        let base = #"{"entitySet":"checks","entities":[ENTITY],"removed":[],"cursor":"1.0","more":false}"#
        let entity = #"{"id":"a","fields":{"s":"x"},"version":1,"updatedAt":"2026-12-04T10:00:00Z","updatedBy":"b"}"#
        for document in [
            // A member twice, a number JSONDecoder may take, a trailing comma.
            base.replacingOccurrences(
                of: "ENTITY",
                with: entity.replacingOccurrences(of: #""id":"a""#, with: #""id":"a","id":"b""#)
            ),
            base.replacingOccurrences(
                of: "ENTITY",
                with: entity.replacingOccurrences(of: #""version":1"#, with: #""version":1.0"#)
            ),
            base.replacingOccurrences(
                of: "ENTITY",
                with: entity.replacingOccurrences(of: #""s":"x""#, with: #""s":"x","s":"y""#)
            ),
            base.replacingOccurrences(of: "ENTITY", with: entity) + " x",
            // Not the document: a member missing, a value of another type, a bad date.
            base.replacingOccurrences(of: "ENTITY", with: entity.replacingOccurrences(of: #""id":"a","#, with: "")),
            base.replacingOccurrences(
                of: "ENTITY",
                with: entity.replacingOccurrences(of: #""s":"x""#, with: #""s":1"#)
            ),
            base.replacingOccurrences(
                of: "ENTITY",
                with: entity.replacingOccurrences(of: "2026-12-04", with: "2026-02-30")
            ),
            base.replacingOccurrences(of: "ENTITY", with: entity).replacingOccurrences(of: #""more":false"#, with: ""),
            "", "[]", "null",
        ] {
            #expect(Self.scanned(Array(document.utf8)) == nil, "\(document)")
        }
        let plain = base.replacingOccurrences(of: "ENTITY", with: entity)
        #expect(Self.scanned(Array(plain.utf8))?.entities.map(\.id) == ["a"])
    }
}

import Foundation
import GangwayClient
import GangwayProtocol

/// The demo's app, as the device app and the demo's server both know it: aircraft ground
/// checks at an airline, its two users and their checks. The server (GangwayDemo) seeds
/// them; the device app names them on its banner and plays them in demo mode.
public enum DemoApp {
    /// The demo app: aircraft ground checks at an airline.
    public static let appID = "checks"
    public static let appName = "Aircraft Ground Checks"
    public static let emailDomain = "airline.example"
    /// The demo users and their passwords, printed for the person trying the app. They
    /// sign in only to this loopback server.
    public static let users: [(username: String, displayName: String, password: String)] = [
        ("alice", "Alice Martin", "preflight-alice"),
        ("bob", "Bob Okafor", "preflight-bob"),
    ]

    /// The demo app's aircraft checks (entity set `checks`), put on the server at first
    /// start; see ``ChecksText`` for the fields.
    package static let checks: [(id: String, fields: [String: String])] = [
        (
            "F-GKXA-fuel",
            ["aircraft": "A320 F-GKXA", "stand": "12", "item": "fuel level", "status": "done", "reading": "8200 kg"]
        ),
        ("F-GKXA-tyres", ["aircraft": "A320 F-GKXA", "stand": "12", "item": "tyre pressure", "status": "open"]),
        ("F-GKXA-walkaround", ["aircraft": "A320 F-GKXA", "stand": "12", "item": "walk-around", "status": "open"]),
        ("F-GTAJ-fuel", ["aircraft": "A321 F-GTAJ", "stand": "14", "item": "fuel level", "status": "open"]),
        (
            "F-GTAJ-tyres",
            [
                "aircraft": "A321 F-GTAJ", "stand": "14", "item": "tyre pressure", "status": "done",
                "reading": "14.2 bar",
            ]
        ),
    ]

    /// The schema of the demo's checks: what the server checks every write of a check
    /// against, and what devices build their local store from.
    package static let checksSchema: [EntityField] = [
        EntityField("aircraft", .text, indexed: true),
        EntityField("stand", .text, indexed: true),
        EntityField("item", .text),
        EntityField("status", .text, required: true, indexed: true),
        EntityField("reading", .text),
        EntityField("note", .text),
        EntityField("due", .dateTime, indexed: true),
    ]

    /// The stations of the demo airline's larger operation (`--demo-checks`), each
    /// user's first: alice works at CDG, bob at ORY.
    package static let stations = ["CDG", "ORY", "NCE", "LYS", "MRS", "TLS", "BOD", "NTE", "SXB", "BIA"]

    /// The stations each demo user's part of the checks holds, in the larger operation.
    package static let userStations = ["alice": ["CDG"], "bob": ["ORY"]]

    /// The most checks the larger operation may generate.
    package static let generatedChecksLimit = 100_000

    /// The schema of the larger operation's checks: the demo's, with the station, by
    /// which each user receives their own part (the subset `station` in `stations`).
    package static let stationChecksSchema: [EntityField] =
        [EntityField("station", .text, indexed: true)] + checksSchema
    package static let stationSubset = EntitySubset(field: "station", attribute: "stations")

    /// `count` checks of the larger operation, spread evenly over the ``stations``, the
    /// same ones at every start: `CDG-00001` on.
    package static func generatedChecks(_ count: Int) -> [(id: String, fields: [String: String])] {
        let items = [
            "fuel level", "tyre pressure", "walk-around", "oil level", "brakes", "cabin", "lights", "de-icing",
        ]
        let types = ["A319", "A320", "A321", "A220"]
        return (0..<count).map { index in
            let station = stations[index % stations.count]
            let number = index / stations.count + 1
            let letters = (0..<3).map { Character(UnicodeScalar(UInt8(65 + (index / [1, 26, 676][$0]) % 26))) }
            var fields = [
                "station": station,
                "aircraft": "\(types[index % types.count]) F-H\(String(letters))",
                "stand": "\(1 + index % 40)",
                "item": items[index % items.count],
                "status": index % 3 == 0 ? "done" : "open",
                "due": String(format: "2026-12-%02dT%02d:%02d:00Z", 5 + index % 20, index % 24, index % 60),
            ]
            if index % 3 == 0 { fields["reading"] = "\(80 + index % 40)" }
            return (String(format: "%@-%05d", station, number), fields)
        }
    }

    /// The same checks, for demo mode, which has no server.
    package static func sampleChecks(at now: Date) -> [AppEntity] {
        checks.map { AppEntity(id: $0.id, fields: $0.fields, version: 1, updatedAt: now, updatedBy: "sample") }
    }
}

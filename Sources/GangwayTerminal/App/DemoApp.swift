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

    /// The same checks, for demo mode, which has no server.
    package static func sampleChecks(at now: Date) -> [AppEntity] {
        checks.map { AppEntity(id: $0.id, fields: $0.fields, version: 1, updatedAt: now, updatedBy: "sample") }
    }
}

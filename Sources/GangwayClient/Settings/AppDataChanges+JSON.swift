internal import Foundation
internal import GangwayProtocol

extension AppDataChanges {
    /// The page a sync answer's JSON holds (`EntityChanges` in the API document), read by
    /// ``GangwayProtocol/JSONScanner``: a first sync reads a hundred thousand entities,
    /// and the generated type's `JSONDecoder` path was a third of what it cost. `nil`
    /// for anything the scanner leaves to `JSONDecoder` (which then reads it, or refuses
    /// it as it always did).
    ///
    /// It reads what the generated type reads: the required members, each once; `part`
    /// and an entity's `position` may be absent or null; members the document does not
    /// name are skipped.
    static func scanned(_ json: UnsafeRawBufferPointer) -> AppDataChanges? {
        var scanner = JSONScanner(json)
        var entitySet: String?
        var entities: [AppEntity]?
        var removedIDs: [String]?
        var cursor: String?
        var more: Bool?
        var isPart: Bool?
        do throws(JSONScanner.NotRead) {
            try scanner.object { scanner, key throws(JSONScanner.NotRead) in
                switch key {
                case "entitySet": try once(&entitySet, try scanner.string())
                case "entities":
                    var read: [AppEntity] = []
                    try scanner.array { scanner throws(JSONScanner.NotRead) in read.append(try entity(&scanner)) }
                    try once(&entities, read)
                case "removed":
                    var read: [String] = []
                    try scanner.array { scanner throws(JSONScanner.NotRead) in read.append(try removedID(&scanner)) }
                    try once(&removedIDs, read)
                case "cursor": try once(&cursor, try scanner.string())
                case "more": try once(&more, try scanner.bool())
                case "part": try once(&isPart, scanner.null() ? false : try scanner.bool())
                default: try scanner.skipValue()
                }
            }
            try scanner.end()
        } catch {
            return nil
        }
        guard entitySet != nil, let entities, let removedIDs, let cursor, let more else {
            return nil
        }
        return AppDataChanges(
            entities: entities,
            removedIDs: removedIDs,
            cursor: cursor,
            more: more,
            isPart: isPart ?? false
        )
    }

    /// One `Entity` of the page.
    private static func entity(_ scanner: inout JSONScanner) throws(JSONScanner.NotRead) -> AppEntity {
        var id: String?
        var fields: [String: String]?
        var version: Int64?
        var updatedAt: Date?
        var updatedBy: String?
        var position: Int64??
        try scanner.object { scanner, key throws(JSONScanner.NotRead) in
            switch key {
            case "id": try once(&id, try scanner.string())
            case "fields":
                var read: [String: String] = [:]
                // Room for a usual entity's fields, so the map is not grown again and again.
                read.reserveCapacity(16)
                try scanner.object { scanner, name throws(JSONScanner.NotRead) in
                    guard read.updateValue(try scanner.string(), forKey: name) == nil else {
                        throw JSONScanner.NotRead()
                    }
                }
                try once(&fields, read)
            case "version": try once(&version, try scanner.integer())
            case "updatedAt":
                guard let date = LenientDateTranscoder.parse(try scanner.string()) else { throw JSONScanner.NotRead() }
                try once(&updatedAt, date)
            case "updatedBy": try once(&updatedBy, try scanner.string())
            case "position": try once(&position, scanner.null() ? nil : try scanner.integer())
            default: try scanner.skipValue()
            }
        }
        guard let id, let fields, let version, let updatedAt, let updatedBy else { throw JSONScanner.NotRead() }
        return AppEntity(id: id, fields: fields, version: version, updatedAt: updatedAt, updatedBy: updatedBy)
    }

    /// The ID of one `RemovedEntity` of the page.
    private static func removedID(_ scanner: inout JSONScanner) throws(JSONScanner.NotRead) -> String {
        var id: String?
        var position: Int64?
        try scanner.object { scanner, key throws(JSONScanner.NotRead) in
            switch key {
            case "id": try once(&id, try scanner.string())
            case "position": try once(&position, try scanner.integer())
            default: try scanner.skipValue()
            }
        }
        guard let id, position != nil else { throw JSONScanner.NotRead() }
        return id
    }

    /// Sets a member read once; a member twice is left to `JSONDecoder`.
    private static func once<Value>(_ slot: inout Value?, _ value: Value) throws(JSONScanner.NotRead) {
        guard slot == nil else { throw JSONScanner.NotRead() }
        slot = value
    }
}

import GangwayProtocol
import GangwayServerStorage
import NIOCore

/// One page of a sync (`syncAppData`) as ``DataHandler/changes(appID:entitySet:cursor:limit:wait:)``
/// found it: the log's entries past the device's cursor, the cursor to ask with next,
/// whether pages remain, and whether the page is the user's own part of the set.
struct SyncAnswer: Sendable {
    let entitySet: String
    let entries: [EntityLogPage.Entry]
    let cursor: String
    let more: Bool
    let isPart: Bool

    /// The page as the generated server writes it.
    var wire: Components.Schemas.EntityChanges {
        var entities: [Components.Schemas.Entity] = []
        var removed: [Components.Schemas.RemovedEntity] = []
        for entry in entries {
            switch entry {
            case .written(let entity): entities.append(DataHandler.wire(entity))
            case .removed(let id, let position, _): removed.append(.init(id: id, position: position))
            }
        }
        return .init(
            entitySet: entitySet,
            entities: entities,
            removed: removed,
            cursor: cursor,
            more: more,
            part: isPart ? true : nil
        )
    }

    /// The page as the API document's `EntityChanges`, written straight to bytes: the
    /// same document the generated server writes (compact, keys sorted, Gangway's dates;
    /// a slash is not escaped), without `JSONEncoder`, which was most of a first sync's
    /// cost on the server. A test reads both with the generated type and finds them equal.
    var json: ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + entries.count * 320)
        bytes.append(UInt8(ascii: "{"))
        JSONBytes.key("cursor", into: &bytes)
        JSONBytes.string(cursor, into: &bytes)
        JSONBytes.member("entities", into: &bytes)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for case .written(let entity) in entries {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "{"))
            JSONBytes.key("fields", into: &bytes)
            FlatJSON.write(entity.fields, into: &bytes)
            JSONBytes.member("id", into: &bytes)
            JSONBytes.string(entity.id, into: &bytes)
            if entity.position > 0 {
                JSONBytes.member("position", into: &bytes)
                JSONBytes.integer(entity.position, into: &bytes)
            }
            JSONBytes.member("updatedAt", into: &bytes)
            JSONBytes.string(LenientDateTranscoder.format(entity.updatedAt), into: &bytes)
            JSONBytes.member("updatedBy", into: &bytes)
            JSONBytes.string(entity.updatedBy, into: &bytes)
            JSONBytes.member("version", into: &bytes)
            JSONBytes.integer(entity.version, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        JSONBytes.member("entitySet", into: &bytes)
        JSONBytes.string(entitySet, into: &bytes)
        JSONBytes.member("more", into: &bytes)
        JSONBytes.bool(more, into: &bytes)
        if isPart {
            JSONBytes.member("part", into: &bytes)
            JSONBytes.bool(true, into: &bytes)
        }
        JSONBytes.member("removed", into: &bytes)
        bytes.append(UInt8(ascii: "["))
        first = true
        for case .removed(let id, let position, _) in entries {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "{"))
            JSONBytes.key("id", into: &bytes)
            JSONBytes.string(id, into: &bytes)
            JSONBytes.member("position", into: &bytes)
            JSONBytes.integer(position, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        bytes.append(UInt8(ascii: "}"))
        return ByteBuffer(bytes: bytes)
    }
}

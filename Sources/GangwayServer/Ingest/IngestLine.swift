import Foundation
import GangwayProtocol
import GangwayServerStorage

/// One line of an ingest batch (`ingestAppData`), read: an entity to put or remove, or
/// why the line is refused.
///
/// A line is a JSON object: `{"id": ID, "fields": {NAME: VALUE, ...}}` puts the entity
/// with those fields, `{"id": ID, "remove": true}` removes it. Its ID, field names and
/// values follow the rules of a single put (``Validation/entityFields(_:)``). A refusal
/// names the member or the rule, never a value; it names the entity's ID only when the
/// ID is one.
///
/// Lines are read by ``GangwayProtocol/JSONScanner`` (a batch is read by the hundred
/// thousand); a line it leaves is read by `JSONDecoder`, which judges it as the API does.
enum IngestLine {
    /// A line, read.
    enum Reading {
        /// An entity to put (with fields) or to remove.
        case row(IngestRow)
        /// Why the line is no row.
        case refused(IngestRefusal)
    }

    /// What a line's members hold, as far as the format cares.
    private enum Value: Decodable {
        case string(String)
        case bool(Bool)
        case fields([String: String])
        case other

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let text = try? value.decode(String.self) {
                self = .string(text)
            } else if let flag = try? value.decode(Bool.self) {
                self = .bool(flag)
            } else if let fields = try? value.decode([String: String].self) {
                self = .fields(fields)
            } else {
                self = .other
            }
        }
    }

    /// The line numbered `line`, read: a row, or its refusal.
    static func read(_ bytes: UnsafeRawBufferPointer, line: Int) -> Reading {
        let members = scanned(bytes) ?? decoded(bytes)
        guard let members else {
            return .refused(refusal(line, code: invalidLine, "The line is not a JSON object."))
        }
        return row(of: members, line: line)
    }

    /// A line longer than the batch reads, refused.
    static func tooLong(_ line: Int, limit: Int) -> IngestRefusal {
        refusal(line, code: invalidLine, "The line is longer than \(limit) bytes.")
    }

    // MARK: Reading

    /// The members of a plain line, by ``JSONScanner``; `nil` for one it leaves.
    private static func scanned(_ bytes: UnsafeRawBufferPointer) -> [(String, Value)]? {
        var scanner = JSONScanner(bytes)
        var members: [(String, Value)] = []
        do throws(JSONScanner.NotRead) {
            try scanner.object { scanner, key throws(JSONScanner.NotRead) in
                switch key {
                case "id":
                    members.append((key, .string(try scanner.string())))
                case "fields":
                    var fields: [String: String] = [:]
                    try scanner.object { scanner, name throws(JSONScanner.NotRead) in
                        // A name twice is left to the decoder, which judges it.
                        guard fields.updateValue(try scanner.string(), forKey: name) == nil else {
                            throw JSONScanner.NotRead()
                        }
                    }
                    members.append((key, .fields(fields)))
                case "remove":
                    members.append((key, .bool(try scanner.bool())))
                default:
                    try scanner.skipValue()
                    members.append((key, .other))
                }
            }
            try scanner.end()
        } catch {
            return nil
        }
        return members
    }

    /// The members of any line that is a JSON object, by `JSONDecoder`; `nil` for one
    /// that is not.
    private static func decoded(_ bytes: UnsafeRawBufferPointer) -> [(String, Value)]? {
        guard let object = try? JSONDecoder.gangway.decode([String: Value].self, from: Data(bytes)) else {
            return nil
        }
        return object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    // MARK: Judging

    /// The row `members` make, or why they make none.
    private static func row(of members: [(String, Value)], line: Int) -> Reading {
        var id: Value?
        var fields: Value?
        var remove: Value?
        for (key, value) in members {
            switch key {
            case "id" where id == nil: id = value
            case "fields" where fields == nil: fields = value
            case "remove" where remove == nil: remove = value
            case "id", "fields", "remove":
                return .refused(refusal(line, code: invalidLine, "The line has the member \(key) twice."))
            default:
                return .refused(
                    refusal(
                        line,
                        code: invalidLine,
                        "The line has a member the format does not name: \(TextRules.shown(key, limit: 64))."
                    )
                )
            }
        }
        guard case .string(let entityID) = id else {
            return .refused(refusal(line, code: invalidLine, "The line has no id, a string."))
        }
        do throws(APIError) {
            try Validation.identifier(entityID, "id")
        } catch {
            return .refused(refusal(line, code: error.code.rawValue, error.message))
        }
        switch (fields, remove) {
        case (.fields(let values)?, nil):
            do throws(APIError) {
                try Validation.entityFields(values)
            } catch {
                return .refused(refusal(line, id: entityID, code: error.code.rawValue, error.message))
            }
            return .row(IngestRow(line: line, id: entityID, fields: values))
        case (nil, .bool(true)?):
            return .row(IngestRow(line: line, id: entityID, fields: nil))
        default:
            return .refused(
                refusal(
                    line,
                    id: entityID,
                    code: invalidLine,
                    "The line has either fields (an object of strings) or \"remove\": true."
                )
            )
        }
    }

    /// The code of a line that is not a row of the format.
    static let invalidLine = "INVALID_LINE"

    private static func refusal(_ line: Int, id: String = "", code: String, _ message: String) -> IngestRefusal {
        IngestRefusal(line: line, id: id, code: code, message: message)
    }
}

import Foundation
import GangwayProtocol
import Testing

@Suite("Every bound of the API document is in the limits table, and the same")
struct APILimitsTests {
    /// Every bound the document states, read from it: pointer → (measure, range).
    static func documentBounds() throws -> [String: APILimits.Bound] {
        let document = try JSONSerialization.jsonObject(with: APIDocument.json())
        var bounds: [String: APILimits.Bound] = [:]
        let pairs: [(APILimits.Measure, String, String)] = [
            (.length, "minLength", "maxLength"), (.value, "minimum", "maximum"),
            (.items, "minItems", "maxItems"), (.members, "minProperties", "maxProperties"),
        ]
        func walk(_ node: Any, _ pointer: String) {
            if let object = node as? [String: Any] {
                for (measure, low, high) in pairs where object[low] != nil || object[high] != nil {
                    let lower = (object[low] as? Int) ?? 0
                    let upper = (object[high] as? Int) ?? Int.max
                    #expect(bounds[pointer] == nil, "\(pointer) bounds two measures")
                    bounds[pointer] = APILimits.Bound(pointer: pointer, measure: measure, range: lower...upper)
                }
                for (key, value) in object {
                    let escaped = key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(
                        of: "/",
                        with: "~1"
                    )
                    walk(value, pointer + "/" + escaped)
                }
            } else if let array = node as? [Any] {
                for (index, value) in array.enumerated() { walk(value, pointer + "/\(index)") }
            }
        }
        walk(document, "")
        return bounds
    }

    /// The document's node at a JSON pointer.
    static func node(at pointer: String) throws -> Any? {
        var node: Any? = try JSONSerialization.jsonObject(with: APIDocument.json())
        for part in pointer.split(separator: "/").map(String.init) {
            let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let array = node as? [Any], let index = Int(key) {
                node = array.indices.contains(index) ? array[index] : nil
            } else {
                node = (node as? [String: Any])?[key]
            }
        }
        return node
    }

    @Test("each bound in openapi.json has its entry, with the same measure and range")
    func theDocumentsBoundsAreTheTables() throws {
        let stated = try Self.documentBounds()
        let table = Dictionary(APILimits.document.map { ($0.pointer, $0) }) { first, _ in first }
        #expect(table.count == APILimits.document.count, "no pointer twice in the table")
        #expect(stated.count > 80, "the walk found the document's bounds")
        for (pointer, bound) in stated.sorted(by: { $0.key < $1.key }) {
            let entry = try #require(table[pointer], "\(pointer) \(bound.measure) \(bound.range) is not in APILimits")
            #expect(entry == bound, "\(pointer): the table says \(entry.measure) \(entry.range)")
        }
        for pointer in table.keys.sorted() where stated[pointer] == nil {
            Issue.record("APILimits names \(pointer), where the document states no bound")
        }
    }

    @Test("the named limits that other modules keep are the table's")
    func sharedLimitsAreTheSame() {
        #expect(APILimits.identifier == EntityLimits.identifierLength)
        #expect(APILimits.changesPerUpload.upperBound == EntityLimits.changesPerUpload)
        #expect(APILimits.logUploadIntervalSeconds == LogUploadSchedule.intervalSeconds)
        #expect(APILimits.changeFields.upperBound == EntityLimits.fieldsPerEntity)
    }
}

@Suite("A setting left out means the same on both sides: the document's default")
struct APIDefaultsTests {
    static func property(_ schema: String, _ name: String) throws -> [String: Any] {
        let document = try #require(try JSONSerialization.jsonObject(with: APIDocument.json()) as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let object = try #require(schemas[schema] as? [String: Any])
        let properties = try #require(object["properties"] as? [String: Any])
        return try #require(properties[name] as? [String: Any])
    }

    @Test func theDefaultsAreTheDocuments() throws {
        let upload = try Self.property("SharedDeviceSettings", "allowUploadPendingChangesFromPreviousUser")
        #expect(upload["default"] as? Bool == APIDefaults.allowsUploadOfPreviousUserChanges)
        let reset = try Self.property("RecoverySettings", "passcodeResetKeepsData")
        #expect(reset["default"] as? Bool == APIDefaults.passcodeResetKeepsData)
        let removals = try Self.property("DataSettings", "removalsKeptDays")
        #expect(removals["default"] as? Int == APIDefaults.removalsKeptDays)
        // Each admin listing's limit.
        let listings = APILimits.document.filter { $0.pointer.hasPrefix("/paths/") && $0.range == APILimits.listLimit }
        #expect(
            listings.count == 7,
            "the logs, the changes, the audit, the users, the devices, the data and the deliveries"
        )
        for bound in listings {
            let schema = try #require(try APILimitsTests.node(at: bound.pointer) as? [String: Any])
            #expect(schema["default"] as? Int == APIDefaults.listLimit, "\(bound.pointer)")
        }
        let page = try #require(APILimits.document.first { $0.range == APILimits.syncPage })
        let schema = try #require(try APILimitsTests.node(at: page.pointer) as? [String: Any])
        #expect(schema["default"] as? Int == APIDefaults.syncPage)
    }
}

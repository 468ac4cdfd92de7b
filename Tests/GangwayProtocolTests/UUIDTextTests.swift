import Foundation
import GangwayProtocol
import Testing

@Suite("A UUID's text is the lowercase form every part of Gangway writes")
struct UUIDTextTests {
    @Test func itIsTheLowercaseUUIDString() throws {
        var uuids = (0..<200).map { _ in UUID() }
        uuids.append(try #require(UUID(uuidString: "00000000-0000-0000-0000-000000000000")))
        uuids.append(try #require(UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")))
        uuids.append(try #require(UUID(uuidString: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9")))
        for uuid in uuids {
            #expect(uuid.lowercasedText == uuid.uuidString.lowercased())
            #expect(UUID(uuidString: uuid.lowercasedText) == uuid)
        }
    }
}

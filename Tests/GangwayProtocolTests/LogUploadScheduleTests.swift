import Foundation
import GangwayProtocol
import Testing

@Suite("The log upload interval: one range on both sides of the wire")
struct LogUploadScheduleTests {
    @Test func theDocumentStatesTheScheduleRange() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: APIDocument.json()) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let properties = try #require((schemas["LogSettings"] as? [String: Any])?["properties"] as? [String: Any])
        let interval = try #require(properties["uploadIntervalSeconds"] as? [String: Any])
        let low = try #require(interval["minimum"] as? Int)
        let high = try #require(interval["maximum"] as? Int)
        #expect(low...high == LogUploadSchedule.intervalSeconds)
        #expect(LogUploadSchedule.intervalSeconds.contains(LogUploadSchedule.defaultIntervalSeconds))
    }
}

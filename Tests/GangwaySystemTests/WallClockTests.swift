import Foundation
import GangwaySystem
import Testing

@Suite("The wall clock: the time of day is read in one place")
struct WallClockTests {
    @Test("no source file but WallClock's reads the system's clock; every other reads a clock it was given")
    func oneSeam() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .allObjects.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 100)
        var readers: [String] = []
        for file in files where file.lastPathComponent != "WallClock.swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            for (index, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if ["Date()", "Date.now", "Date.init()"].contains(where: { line.contains($0) }) {
                    readers.append("\(file.lastPathComponent):\(index + 1)")
                }
            }
        }
        #expect(readers.isEmpty, "read the system's clock: \(readers)")
    }

    @Test("it is the system's clock")
    func systemTime() {
        let before = Date()
        let now = WallClock.now()
        #expect(now >= before && now.timeIntervalSince(before) < 60)
    }
}

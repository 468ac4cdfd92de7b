import Foundation
import GangwaySystem
import Testing

@Suite("Directory lock: one holder, and one that failed takes back only what it made")
struct DirectoryLockTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-hold-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    @Test("a holder that failed removes the lock file and the empty directories it made, and the next one takes it")
    func aFailedHolderTakesBackWhatItMade() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data/device")
        let hold = try DirectoryLock(data, holder: "the first")
        #expect(exists(hold.file))
        #expect(throws: PrivateFileError.inUse) { try DirectoryLock(data, holder: "the second") }
        hold.releaseRemovingWhatItMade()
        #expect(!exists(hold.file))
        #expect(!exists(root.appendingPathComponent("data")), "both directories it made went, being empty")
        #expect(exists(root), "the directory that was there stays")

        let next = try DirectoryLock(data, holder: "the next")
        #expect(try String(contentsOf: next.file, encoding: .utf8).contains("(the next)"))
    }

    @Test("a lock file that was there, and a directory with anything in it, stay")
    func whatWasThereStays() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let kept = root.appendingPathComponent("kept")
        let earlier = try DirectoryLock(kept, holder: "an earlier run")
        earlier.release()
        let again = try DirectoryLock(kept, holder: "a run that fails")
        again.releaseRemovingWhatItMade()
        #expect(exists(again.file), "the file an earlier run made is not this one's to remove")

        let used = root.appendingPathComponent("used")
        let hold = try DirectoryLock(used, holder: "a run that fails")
        try PrivateFiles.write(Data("data\n".utf8), to: used.appendingPathComponent("store"))
        hold.releaseRemovingWhatItMade()
        #expect(!exists(hold.file), "its own lock file goes")
        #expect(exists(used.appendingPathComponent("store")), "the directory holds something: it stays")
    }

    @Test("a failed holder never removes the file of another holder that took the directory since")
    func anotherHoldersFileStays() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        let failed = try DirectoryLock(data, holder: "a run that fails")
        failed.releaseRemovingWhatItMade()
        let other = try DirectoryLock(data, holder: "another run")
        // Spent already: a second call finds a file that is not its own.
        failed.releaseRemovingWhatItMade()
        #expect(exists(other.file))
        #expect(throws: PrivateFileError.inUse) { try DirectoryLock(data, holder: "a third") }
    }
}

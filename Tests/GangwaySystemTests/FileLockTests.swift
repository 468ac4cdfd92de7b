import Foundation
import GangwaySystem
import Synchronization
import Testing

@Suite("File lock: holders take turns, and a wait that runs out is an error")
struct FileLockTests {
    private func temporaryFile() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.appendingPathComponent("attempts.lock")
    }

    @Test("a second holder waits for the first to release; the file is made owner-only")
    func takesTurns() throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let first = try FileLock(file)
        #expect(PrivateFiles.mode(of: file.path) == 0o600)
        let order = Mutex<[String]>([])
        let taken = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let second = try? FileLock(file, timeout: .seconds(10))
            order.withLock { $0.append(second == nil ? "failed" : "second") }
            second?.release()
            taken.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        order.withLock { $0.append("first released") }
        first.release()
        taken.wait()
        #expect(order.withLock { $0 } == ["first released", "second"])
    }

    @Test("a wait that runs out throws, naming no more than the file")
    func timesOut() throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let held = try FileLock(file)
        #expect(throws: PrivateFileError.failed) { try FileLock(file, timeout: .milliseconds(50)) }
        held.release()
        _ = try FileLock(file, timeout: .milliseconds(50))
    }

    @Test("a holder that removed the file: a waiter locks the file now at the path, never the one gone")
    func aRemovedFileIsOpenedAgain() throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let first = try FileLock(file)
        let order = Mutex<[String]>([])
        let taken = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let waiter = try? FileLock(file, timeout: .seconds(10))
            order.withLock { $0.append(waiter == nil ? "failed" : "waiter") }
            waiter?.release()
            taken.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        try FileManager.default.removeItem(at: file)
        let newcomer = try FileLock(file, timeout: .milliseconds(100))
        first.release()
        Thread.sleep(forTimeInterval: 0.2)
        order.withLock { $0.append("newcomer released") }
        newcomer.release()
        taken.wait()
        #expect(order.withLock { $0 } == ["newcomer released", "waiter"])
    }
}

import Foundation

/// The process's own figures, as Linux's `/proc` gives them: what a Prometheus client's
/// process collector exports (resident memory, CPU time, open files, start time).
struct ProcessFigures: Sendable {
    var residentBytes: Int
    var cpuSeconds: Double
    var openFiles: Int

    /// Clock ticks a second, as `/proc/self/stat` counts CPU time.
    private static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The figures now; `nil` where `/proc` is not there.
    static func read() -> ProcessFigures? {
        guard let fields = statFields() else { return nil }
        // After the command's closing parenthesis: field 3 is the state; utime and stime
        // are fields 14 and 15, rss (pages) field 24.
        guard fields.count > 21, let user = Double(fields[11]), let system = Double(fields[12]),
            let pages = Int(fields[21])
        else { return nil }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return ProcessFigures(
            residentBytes: pages * pageSize,
            cpuSeconds: (user + system) / ticks,
            openFiles: files
        )
    }

    /// When the process started, in seconds since 1970; `nil` where `/proc` is not there.
    static var startTime: Double? {
        guard let fields = statFields(), fields.count > 19, let ticksAfterBoot = Double(fields[19]),
            let boot = bootTime
        else { return nil }
        return boot + ticksAfterBoot / ticks
    }

    /// The fields of `/proc/self/stat` after the command (which may hold spaces), from
    /// the state on.
    private static func statFields() -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    private static var bootTime: Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

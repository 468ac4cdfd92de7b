import Foundation
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// A program Gangway runs when it is installed, such as `zbarimg` (reading a QR code on
/// the device), `wrk` or `sqlcipher` (the
/// benchmarks): found on a search path, run off Swift's cooperative threads, its
/// standard output collected.
///
/// ```swift
/// let zbarimg = ExternalTool("zbarimg")
/// guard let output = try await zbarimg.run(["--raw", "--", path]) else { return nil }  // not installed
/// if output.status == 0 { print(output.text) }
/// ```
public struct ExternalTool: Sendable, Hashable {
    /// The program's name, for messages.
    public var name: String
    /// Where to look for it, in order.
    public var searchPath: [String]

    /// The program `name` in `/usr/bin`, `/usr/local/bin` or `/opt/homebrew/bin`, or at the
    /// paths given.
    public init(_ name: String, searchPath: [String]? = nil) {
        self.name = name
        self.searchPath = searchPath ?? ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"].map { "\($0)/\(name)" }
    }

    /// The first executable file on the search path, or `nil` when the program is not
    /// installed.
    public var executable: String? { searchPath.first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// What a run of the program ended with.
    public struct Output: Sendable, Hashable {
        /// The exit status.
        public var status: Int32
        /// All it wrote to standard output.
        public var standardOutput: Data

        /// Standard output as UTF-8 text.
        public var text: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// The most a program may write to standard output: far above what any tool Gangway
    /// runs prints (a QR code's image, a benchmark's report), and a bound on the memory
    /// a misbehaving one can take.
    public static let outputLimit = 64 << 20

    /// Runs the program with `arguments`, writing `input` to its standard input and
    /// discarding its standard error, and waits for it without holding a thread.
    ///
    /// The program is started by swift-subprocess, not Foundation's `Process`: on Linux,
    /// swift-corelibs-foundation before its fix #5472 (Swift 6.3.1 among them) can crash
    /// the calling program while it starts one, once that program has more than about
    /// 1,300 files open, as a busy server does.
    ///
    /// - Returns: Its exit status (128 plus the signal's number when a signal ended it) and
    ///   standard output; `nil` when it is not installed.
    /// - Throws: The error of a program that is installed but could not be started, or
    ///   that wrote more than ``outputLimit`` bytes.
    public func run(_ arguments: [String], input: Data? = nil) async throws -> Output? {
        guard let executable else { return nil }
        let result = try await Subprocess.run(
            .path(FilePath(executable)),
            arguments: Arguments(arguments),
            input: .data(input ?? Data()),
            output: .data(limit: Self.outputLimit),
            error: .discarded
        )
        let status: Int32
        switch result.terminationStatus {
        case .exited(let code): status = code
        case .signaled(let signal): status = 128 + signal
        }
        return Output(status: status, standardOutput: result.standardOutput)
    }
}

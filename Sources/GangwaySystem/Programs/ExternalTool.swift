import Foundation

/// A program Gangway runs when it is installed, such as `qrencode` (the server's QR
/// codes), `zbarimg` (reading a QR code on the device), `wrk` or `sqlcipher` (the
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

    /// Runs the program with `arguments`, writing `input` to its standard input (which
    /// it should read to the end) and discarding its standard error, and waits for it on
    /// a thread of its own.
    ///
    /// - Returns: Its exit status and standard output; `nil` when it is not installed.
    /// - Throws: The error of a program that is installed but could not be started.
    public func run(_ arguments: [String], input: Data? = nil) async throws -> Output? {
        guard let executable else { return nil }
        return try await Task.detached { try Self.run(executable, arguments, input: input) }.value
    }

    private static func run(_ executable: String, _ arguments: [String], input: Data?) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let inputPipe = input.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.start()
        if let inputPipe, let input {
            // Written from another thread while this one reads, so neither side waits on a
            // full pipe.
            let writer = inputPipe.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, standardOutput: data)
    }
}

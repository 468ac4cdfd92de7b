import ArgumentParser
import Crypto
import Foundation
import GangwayAdmin
import GangwayClient
import GangwayProtocol
import GangwayTerminal
import OpenAPIRuntime

/// `gangway admin data import FILE --set NAME`: a CSV or NDJSON file written to an entity
/// set in bulk, a batch of rows per request, each batch once by its ID.
struct AdminDataImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write a CSV or NDJSON file's rows to an entity set in bulk.",
        discussion: """
            Examples: gangway admin data import checks.csv --set checks
                      gangway admin data import changes.ndjson --set checks --batch nightly-2026-12-04

            A CSV file's header names a column 'id' (the entities' IDs) and the fields; \
            each row puts an entity with the fields of its cells that are not empty. An \
            NDJSON file has one JSON object a line: {"id": ID, "fields": {NAME: VALUE}} \
            puts an entity (its fields replaced whole), {"id": ID, "remove": true} removes \
            one. The format is the file's extension (.csv; .ndjson or .jsonl) unless \
            --format says.

            The file is read and sent a batch of rows at a time (--batch-size), never held \
            whole. Each batch is written once by its ID (--batch, then -1, -2, ...; by \
            default one made from the file's content and the set): the same command run \
            again after a failure, or twice, writes nothing twice, and goes on where it \
            stopped. Importing into a set the app does not have yet needs --new-set, so a \
            mistyped name is an error, not a new set. A row the server refuses (the API's \
            rules, the set's schema) is refused alone, by its row, and the rest are \
            written; the summary lists the first refused rows. Written rows reach devices \
            at their next sync.

            Exit codes: 0 every row written, 1 a row refused (the rest were written) or \
            the server refused or could not be reached, 64 invalid command line.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, ndjson
    }

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The CSV or NDJSON file.")
    var file: String

    @Option(name: .customLong("set"), help: "The entity set to write to.")
    var entitySet: String

    @Option(help: "The file's format (default: from its extension).")
    var format: Format?

    @Option(
        help: ArgumentHelp(
            "The batches' ID, before -1, -2, ...: the same ID and rows write once.",
            valueName: "id"
        )
    )
    var batch: String?

    @Option(name: .customLong("batch-size"), help: "Rows sent in one request.")
    var batchSize = EntityLimits.ingestBatchLines

    @Flag(name: .customLong("new-set"), help: "Start a new entity set with the file's rows.")
    var newSet = false

    /// The longest ID given with --batch: its batches' IDs (`ID-n`) stay IDs.
    static let batchPrefixLength = 48
    /// Times a batch is sent before the import gives up.
    static let attempts = 4
    /// The failures after which a batch is sent again: the server did not take it, or
    /// its answer was lost.
    static let retried: [ServiceError] = [.unreachable, .busy, .serverFailure]
    /// Refused rows the summary lists; the rest are counted.
    static let refusalsListed = 20

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "--set")
        if let batch {
            try IdentifierArgument.check(batch, as: "--batch")
            guard batch.count <= Self.batchPrefixLength else {
                throw ValidationError("--batch is at most \(Self.batchPrefixLength) characters.")
            }
        }
        guard (1...100_000).contains(batchSize) else { throw ValidationError("--batch-size is 1 to 100000.") }
        _ = try resolvedFormat()
    }

    private func resolvedFormat() throws -> Format {
        if let format { return format }
        switch URL(fileURLWithPath: file).pathExtension.lowercased() {
        case "csv": return .csv
        case "ndjson", "jsonl": return .ndjson
        default: throw ValidationError("give --format csv or ndjson: the file's extension says neither.")
        }
    }

    func run() async throws {
        let (path, entitySet, batchSize, format) = (file, entitySet, batchSize, try resolvedFormat())
        let (batch, newSet) = (batch, newSet)
        try await server.run { admin in
            let prefix = try batch ?? Self.defaultBatchID(path: path, entitySet: entitySet)
            let id = try await app.resolve(with: admin)
            // A mistyped set's name is an error, not a new set.
            if !newSet, try await !AdminDataSetCheck.exists(entitySet, app: id, admin: admin) {
                throw CommandFailure(
                    "the app \(id) has no entity set '\(entitySet)'; nothing was imported. Give --new-set to start it."
                )
            }
            let handle = try Self.open(path)
            defer { try? handle.close() }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            var source: any ImportSource =
                format == .csv ? try CSVImportSource(path: path) : NDJSONImportSource(file: handle)
            var summary = ImportSummary(file: path, entitySet: entitySet, fileSize: size)
            let progress = ImportProgress()
            while let batch = try source.next(lines: batchSize) {
                let batchID = "\(prefix)-\(summary.batches + 1)"
                let report = try await Self.send(batch, as: batchID, into: entitySet, app: id, admin: admin)
                summary.add(report, of: batch)
                progress.show(summary)
            }
            progress.end()
            Console.standardOutput(summary.text(listing: Self.refusalsListed))
            if summary.refused > 0 {
                throw CommandFailure(
                    summary.refused == 1
                        ? "1 row was refused; the others were written."
                        : "\(ImportSummary.count(summary.refused)) rows were refused; the others were written."
                )
            }
        }
    }

    /// Sends one batch, again after a lost answer or a server that could not take it:
    /// the batch's ID makes a second sending write nothing twice.
    static func send(
        _ batch: ImportBatch,
        as batchID: String,
        into entitySet: String,
        app id: String,
        admin: AdminClient
    ) async throws -> IngestReport {
        var attempt = 1
        while true {
            let failure: ServiceError
            do {
                return try await admin.ingest(HTTPBody(batch.body), into: entitySet, app: id, batch: batchID)
            } catch {
                failure = error
            }
            guard attempt < Self.attempts, Self.retried.contains(failure) else { throw failure }
            try await Task.sleep(for: .seconds(attempt * attempt))
            attempt += 1
        }
    }

    /// The file at `path`, open for reading: a regular file, or the command says why not.
    static func open(_ path: String) throws -> FileHandle {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("cannot read \(path): there is no such file.")
        }
        guard !isDirectory.boolValue else { throw CommandFailure("cannot read \(path): it is a directory.") }
        // Read twice (its digest names the batches, then its rows): a file, not a pipe.
        guard (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
        else { throw CommandFailure("cannot read \(path): it is not a regular file.") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CommandFailure("cannot read \(path).") }
        return handle
    }

    /// `import-` and 12 characters of the digest of the set's name and the file's bytes:
    /// the same file into the same set has the same batches.
    static func defaultBatchID(path: String, entitySet: String) throws -> String {
        let handle = try open(path)
        defer { try? handle.close() }
        var hasher = SHA256()
        hasher.update(data: Data("\(entitySet)\n".utf8))
        do {
            while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(data: data) }
        } catch {
            throw CommandFailure("cannot read \(path).")
        }
        return "import-" + Data(hasher.finalize()).base64URLEncoded.prefix(12)
    }
}

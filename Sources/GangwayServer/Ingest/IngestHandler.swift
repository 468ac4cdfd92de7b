import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// A backend's or an integration job's bulk write of an entity set (`ingestAppData`):
/// NDJSON lines read as the body streams, applied a part at a time, once by batch ID.
///
/// The body is never held whole: ``NDJSONReader`` cuts it into lines as it comes, each
/// line is read (``IngestLine``), and every ``partLines`` lines go to the storage in one
/// transaction (``GangwayServerStorage/ServerStorage/ingest(_:into:of:batch:limit:by:at:)``),
/// which records the batch's lines done and their digest with them. A body sent again
/// is read from its first line: the lines the batch has done are only hashed, and their
/// digest must be the one recorded (the same lines), or the batch is refused; the lines
/// after them apply. So a caller whose answer was lost, whose connection was cut or
/// whose server stopped sends the same body again, and each line applies once.
struct IngestHandler: APIHandler {
    let services: APIServices

    /// Lines in one part (one transaction): enough that a part's cost is its rows', few
    /// enough that a part holds a few MiB, and that a batch of 20,000 lines (four parts)
    /// is read while its parts commit: only its first part is read, and its last written,
    /// with nothing beside it. Against 10,000, it wrote as many rows a second or more on
    /// both databases, holding half the memory.
    static let partLines = 5_000
    /// The longest line read, in bytes (``GangwayProtocol/EntityLimits/ingestLineBytes``).
    static let maximumLineLength = EntityLimits.ingestLineBytes

    func ingestAppData(_ input: Operations.IngestAppData.Input) async throws -> Operations.IngestAppData.Output {
        let app = try await app(input.path.appID)
        let entitySet = input.path.entitySet
        let batchID = input.path.batchID
        try Validation.identifier(entitySet, "entitySet")
        try Validation.identifier(batchID, "batchID")
        guard case .applicationXNdjson(let body) = input.body else {
            throw APIError(.unsupportedMediaType, .unsupportedMediaType, "Send the body as application/x-ndjson.")
        }
        let batch = Batch(appID: app.id, entitySet: entitySet, batchID: batchID)
        let before = try await perform { try await storage.ingestProgress(of: batchID, into: entitySet, of: app.id) }
        var progress = before ?? IngestProgress()
        var reader = NDJSONReader(maximumLineLength: Self.maximumLineLength)
        var part = Part(after: progress.linesDone, digestBefore: progress.digest)
        // The lines done before are hashed, not read: their digest must be the one kept.
        var checked = progress.linesDone == 0

        // A part commits while the next is read: one part in flight at a time, each
        // after the one before, and none still running once the request has ended.
        var applying: Task<IngestProgress, any Error>?
        func send(_ ready: IngestPart) async throws {
            if let applying { progress = try await applying.value }
            applying = Task { try await apply(ready, of: batch) }
        }
        do {
            var chunks = body.makeAsyncIterator()
            while let chunk = try await Self.next(&chunks) {
                var offset = 0
                while offset < chunk.count {
                    offset = chunk.withUnsafeBytes { bytes in
                        reader.read(bytes, from: offset) { number, line in
                            guard number > part.after else { return number < part.after }
                            part.add(line, number: number)
                            return part.lineCount < Self.partLines
                        }
                    }
                    guard reader.lines >= part.after else { continue }
                    if !checked {
                        try check(reader, against: progress, batchID: batchID)
                        checked = true
                    }
                    if part.lineCount >= Self.partLines { try await send(part.sealed(through: reader)) }
                }
            }
            reader.finish { number, line in
                if number > part.after { part.add(line, number: number) }
            }
            guard reader.lines >= part.after else { throw Self.changed(batchID) }
            if !checked { try check(reader, against: progress, batchID: batchID) }
            if part.lineCount > 0 { try await send(part.sealed(through: reader)) }
            if let applying { progress = try await applying.value }
        } catch {
            _ = try? await applying?.value
            throw error
        }

        logger.info(
            "ingest batch",
            metadata: [
                "app": "\(app.id)", "entitySet": "\(entitySet)", "lines": "\(reader.lines)",
                "written": "\(progress.written)", "removed": "\(progress.removed)",
                "refused": "\(progress.refusedCount)",
            ]
        )
        let doneBefore = min(before?.linesDone ?? 0, reader.lines)
        return .ok(.init(body: .json(Self.report(progress, lines: reader.lines, doneBefore: doneBefore, of: batch))))
    }

    /// Where the lines of one request go.
    struct Batch {
        let appID: String
        let entitySet: String
        let batchID: String
    }

    /// The lines read since the last part applied.
    private struct Part {
        /// The batch's lines done when the part began, and their digest.
        var after: Int
        var digestBefore: String?
        var rows: [IngestRow] = []
        var unreadable: [IngestRefusal] = []
        var lineCount = 0

        init(after: Int, digestBefore: String?) {
            self.after = after
            self.digestBefore = digestBefore
        }

        mutating func add(_ line: NDJSONReader.Line, number: Int) {
            lineCount += 1
            switch line {
            case .tooLong:
                unreadable.append(IngestLine.tooLong(number, limit: IngestHandler.maximumLineLength))
            case .text(let bytes):
                // A blank line is a line, and nothing more.
                guard bytes.contains(where: { !Self.isSpace($0) }) else { return }
                switch IngestLine.read(bytes, line: number) {
                case .row(let row): rows.append(row)
                case .refused(let refusal): unreadable.append(refusal)
                }
            }
        }

        /// The part read through the reader's last line, for the storage; this part then
        /// starts the next.
        mutating func sealed(through reader: NDJSONReader) -> IngestPart {
            let digest = reader.digest
            let ready = IngestPart(
                after: after,
                digestBefore: digestBefore,
                rows: rows,
                unreadable: unreadable,
                through: reader.lines,
                digest: digest
            )
            self = Part(after: reader.lines, digestBefore: digest)
            return ready
        }

        private static func isSpace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
        }
    }

    /// Applies a part, in one transaction.
    private func apply(_ part: IngestPart, of batch: Batch) async throws(APIError) -> IngestProgress {
        let progress: IngestProgress
        do {
            progress = try await perform {
                try await storage.ingest(
                    part,
                    into: batch.entitySet,
                    of: batch.appID,
                    batch: batch.batchID,
                    limit: DataHandler.entitySetLimit,
                    by: "admin",
                    at: now()
                )
            }
        } catch  where error.code == .conflict {
            throw APIError(
                .conflict,
                .ingestBatchBusy,
                "Batch \(batch.batchID) moved while this request sent it (another request is sending it): send the batch again once that one has ended."
            )
        }
        services.setWatch.written()
        return progress
    }

    /// The body's next chunk; a body that cannot be read to its end (a connection ended
    /// or a chunk's framing broken in the middle) is the sender's 400, not the server's
    /// failure: the parts committed before stay, and the batch sent again goes on.
    private static func next(_ chunks: inout HTTPBody.AsyncIterator) async throws -> HTTPBody.ByteChunk? {
        do {
            return try await chunks.next()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw APIError.badRequest(
                "The body could not be read to its end: send the batch again; its parts applied are kept."
            )
        }
    }

    /// Checks that the lines the batch has done are the ones read again.
    private func check(_ reader: NDJSONReader, against done: IngestProgress, batchID: String) throws(APIError) {
        guard reader.lines == done.linesDone, reader.digest == done.digest else { throw Self.changed(batchID) }
    }

    private static func changed(_ batchID: String) -> APIError {
        APIError(
            .conflict,
            .ingestBatchChanged,
            "Batch \(batchID) was sent before with other lines: send these under a new batch ID."
        )
    }

    static func report(
        _ progress: IngestProgress,
        lines: Int,
        doneBefore: Int,
        of batch: Batch
    ) -> Components.Schemas.IngestReport {
        .init(
            batchID: batch.batchID,
            entitySet: batch.entitySet,
            lines: Int64(lines),
            linesDone: Int64(progress.linesDone),
            linesDoneBefore: Int64(doneBefore),
            written: Int64(progress.written),
            removed: Int64(progress.removed),
            refused: Int64(progress.refusedCount),
            refusals: progress.refused.map { refusal in
                .init(
                    line: Int64(refusal.line),
                    id: refusal.id.isEmpty ? nil : refusal.id,
                    code: refusal.code,
                    message: refusal.message
                )
            }
        )
    }
}

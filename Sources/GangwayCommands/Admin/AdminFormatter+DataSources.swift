import Foundation
import GangwayAdmin
import GangwayProtocol

extension AdminFormatter {
    static func dataSources(_ sources: [ManagedDataSource]) -> String {
        guard !sources.isEmpty else {
            return "No data sources. Add one with 'gangway admin data source set SET --destination NAME --path /SET'."
        }
        return table(
            ["SET", "READS", "EVERY", "LAST READ", "NEXT"],
            sources.map { source in
                [
                    source.entitySet, "\(source.destination) \(source.path) by \(source.keyProperty)",
                    source.everySeconds.map { every(Int($0)) } ?? "on demand",
                    source.running ? "running" : source.lastRun.map(lastRun) ?? "never",
                    source.nextRunAt.map(date) ?? "-",
                ]
            }
        )
    }

    /// One source, and its last read in full.
    static func dataSource(_ source: ManagedDataSource) -> String {
        var lines: [(String, String)] = [
            ("Set", source.entitySet),
            ("Reads", "\(source.destination) \(source.path), keyed by \(source.keyProperty)"),
            ("Every", source.everySeconds.map { every(Int($0)) } ?? "on demand ('gangway admin data pull')"),
            ("Changes", source.deliversChanges ? "delivered to it, as their authors" : "kept on this server"),
            ("Next read", source.running ? "running now" : source.nextRunAt.map(date) ?? "when asked"),
            (
                "Delta link",
                source.fullRequested
                    ? "none used: the next read is a full one" : source.hasDeltaLink ? "kept" : "none yet"
            ),
        ]
        if let run = source.lastRun {
            lines.append(("Last read", lastRun(run)))
            if let fellBack = run.fellBack { lines.append(("", "a full read: the delta link failed (\(fellBack))")) }
        }
        var text = labelled(lines)
        if let run = source.lastRun, !run.refusals.isEmpty {
            text += "\n" + refusals(run)
        }
        return text
    }

    /// `12,000 rows: 11,990 written, 10 removed, 2 kept, 1 refused, at 2026-12-04 06:00`,
    /// or the read's error.
    static func lastRun(_ run: Components.Schemas.DataSourceRun) -> String {
        let counts =
            "\(run.kind.rawValue), \(count(run.rows, "row")): \(count(run.written, "written")), "
            + "\(count(run.removed, "removed")), \(count(run.kept, "kept")), \(count(run.refused, "refused"))"
        let when = " at \(date(run.finishedAt))"
        guard let error = run.error else { return counts + when }
        return "failed\(when): \(error) (\(counts) before it)"
    }

    /// The refused rows of a read, one a line.
    static func refusals(_ run: Components.Schemas.DataSourceRun) -> String {
        table(
            ["ROW", "ID", "CODE", "WHY"],
            run.refusals.map { [String($0.line), $0.id ?? "", $0.code, $0.message] }
        )
    }

    /// `900` seconds as `15m`, `86400` as `1d`.
    static func every(_ seconds: Int) -> String {
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60)] where seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }

    private static func count(_ value: Int64, _ word: String) -> String {
        let number = value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        return word == "row" && value != 1 ? "\(number) rows" : "\(number) \(word)"
    }
}

extension AdminFormatter {
    static func deliveries(_ deliveries: [ManagedDelivery]) -> String {
        guard !deliveries.isEmpty else { return "No change waits for the company's backend." }
        return table(
            ["CHANGE", "ENTITY", "AUTHOR", "RECEIVED", "FIELDS", "STATE"],
            deliveries.map { delivery in
                let state = delivery.parked ? "parked" : delivery.attempts == 0 ? "waiting" : "retrying"
                let failed = delivery.lastError.map { " (\(delivery.attempts) failed: \($0))" } ?? ""
                return [
                    delivery.changeID, "\(delivery.entitySet)/\(delivery.entityID)", delivery.author,
                    date(delivery.receivedAt), delivery.fields.joined(separator: ", "), state + failed,
                ]
            }
        )
    }
}

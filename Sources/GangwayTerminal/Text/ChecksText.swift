import GangwayServices
import GangwaySystem

/// The demo app's aircraft checks (entity set `checks`), one line per check, the same
/// on the home screen and in demo mode.
///
/// A check's fields: `aircraft` (type and registration), `stand`, `item`, `status`
/// (`open` or `done`) and an optional `reading`. Missing fields show as "?".
public enum ChecksText {
    /// The entity set the demo app serves its checks in.
    public static let entitySet = "checks"

    /// One line per check: "F-GKXA-fuel       A320 F-GKXA   stand 12   fuel level      open".
    public static func lines(_ checks: [AppEntity]) -> [String] {
        lines(checks.map { OfflineWork.ShownEntity(entity: $0, pending: false, needsAttention: false) })
    }

    /// One line per check as the user sees it, the ones their pending changes touch marked
    /// "(pending)", and those the server answered with a conflict or a refusal "(see pending)".
    /// Each column is as wide on a terminal as its longest value (at least its usual width), so a long
    /// ID or value moves the columns after it and never breaks them.
    public static func lines(_ shown: [OfflineWork.ShownEntity]) -> [String] {
        let rows = shown.map { item in
            let check = item.entity
            return [
                check.id,
                check["aircraft"] ?? "?",
                localized("checks.stand", check["stand"] ?? "?"),
                check["item"] ?? "?",
                check["status"] ?? "?",
                check["reading"] ?? "",
            ]
        }
        var widths = [17, 13, 10, 16, 5, 0]
        for row in rows {
            for (column, text) in row.enumerated() {
                widths[column] = max(widths[column], TerminalColumns.width(of: text))
            }
        }
        return zip(shown, rows).map { item, row in
            let mark =
                item.needsAttention
                ? "  " + localized("checks.seePending") : item.pending ? "  " + localized("checks.pending") : ""
            let columns = zip(row, widths).map { text, width in TerminalColumns.padded(text, to: width) }
            return columns.joined(separator: " ").trimmingTrailingSpaces() + mark
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

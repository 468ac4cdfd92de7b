import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes

/// Where a device's copy of an entity set stands in the set's change log, and the text
/// the device keeps for it (opaque to the device; its form is the server's).
///
/// A sync is a run of pages that ends at a checkpoint: the set's last position when the
/// sync began. Every write up to a checkpoint has committed (positions become visible in
/// their order, ``ServerStorage/entityLog(appID:entitySet:after:through:includingRemovals:limit:)``),
/// so the pages up to it are one state of the set, and a device that applies them
/// together never shows half of a write.
///
/// Forms: `1.P` (current through `P`, between syncs), `1.P.C` (a sync under way, read
/// through `P`, ending at `C`) and `1.P.C.s` (the same, from an empty copy). A copy at
/// position 0 holds nothing, so it needs no removals, and a sync from it leaves
/// tombstones out until its checkpoint. A copy of a user's part of a set (``EntitySubset``)
/// names it: `2.V.` and the same, `V` the digest of the subset and the user's values
/// (``view(of:values:)``), so a copy read by another part is read again from the start.
struct SyncCursor: Hashable, Sendable {
    /// The position the device's copy is current through.
    var position: Int64
    /// Where the sync under way ends; `nil` between syncs.
    var checkpoint: Int64?
    /// Whether the sync under way started from an empty copy.
    var fromStart: Bool
    /// The part of the set the copy holds, for a set with a subset; `nil`: all of it.
    var view: String?

    /// A copy that holds nothing yet.
    static let start = SyncCursor(position: 0, checkpoint: nil, fromStart: true)

    /// The form's version: a later server that changes the form reads this one or
    /// answers `CURSOR_EXPIRED`.
    private static let form = "1"

    init(position: Int64, checkpoint: Int64?, fromStart: Bool, view: String? = nil) {
        self.position = position
        self.checkpoint = checkpoint
        self.fromStart = fromStart || position == 0
        self.view = view
    }

    /// The cursor `text` writes; `nil` for a text this server does not write.
    init?(text: String) {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var view: String?
        if parts.first.map(String.init) == Self.viewForm, parts.count >= 3 {
            guard parts[1].count == Self.viewLength, parts[1].utf8.allSatisfy(Self.isHexDigit) else { return nil }
            view = String(parts[1])
            parts = [Substring(Self.form)] + parts.dropFirst(2)
        }
        guard (2...4).contains(parts.count), parts[0] == Self.form, let position = Self.number(parts[1]) else {
            return nil
        }
        guard parts.count > 2 else {
            self.init(position: position, checkpoint: nil, fromStart: false, view: view)
            return
        }
        guard let checkpoint = Self.number(parts[2]), checkpoint > position else { return nil }
        guard parts.count == 3 || parts[3] == Self.fromStartMark else { return nil }
        self.init(position: position, checkpoint: checkpoint, fromStart: parts.count == 4, view: view)
    }

    var text: String {
        let prefix = view.map { "\(Self.viewForm).\($0).\(position)" } ?? "\(Self.form).\(position)"
        guard let checkpoint else { return prefix }
        return "\(prefix).\(checkpoint)" + (fromStart && position > 0 ? "." + Self.fromStartMark : "")
    }

    /// The form of a cursor of a part of a set, and the length of its view.
    private static let viewForm = "2"
    private static let viewLength = 12

    /// The view of a user's part of a set: the subset and the values the user receives,
    /// digested (SHA-256, its first 6 bytes in hex). Any change of either changes it.
    static func view(of subset: EntitySubset, values: Set<String>) -> String {
        let text = ([subset.field, subset.attribute] + values.sorted()).joined(separator: "\u{0}")
        return SHA256.hash(data: Data(text.utf8)).prefix(viewLength / 2).map { String(format: "%02x", $0) }.joined()
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// Why a page read from this cursor cannot bring the copy up to date, if it cannot:
    /// the set's log is behind the cursor (the server's data is older than the copy), or
    /// removals past the cursor were forgotten. Either way the device reads the set again
    /// from the start.
    /// - Parameter removalsKeptDays: How long the app's removals are remembered, to say so.
    func refusal(of page: EntityLogPage, removalsKeptDays: Int) -> APIError? {
        if max(position, checkpoint ?? 0) > page.lastPosition {
            return APIError(
                .gone,
                .cursorExpired,
                "The server's copy of this set is older than yours: read the set again from the start, without a cursor."
            )
        }
        if !fromStart, position < page.purgedThrough {
            return APIError(
                .gone,
                .cursorExpired,
                "Your copy of this set is older than the removals the server keeps (\(removalsKeptDays) days): read the set again from the start, without a cursor."
            )
        }
        return nil
    }

    /// Why this cursor cannot go on for a reader of `view` (its part of the set, `nil`
    /// for all of it), if it cannot: it was read by another part (the user's values or the
    /// set's subset changed), so the device reads its part again from the start.
    func refusal(reading view: String?) -> APIError? {
        guard self.view != view, position > 0 || checkpoint != nil else { return nil }
        return APIError(
            .gone,
            .cursorExpired,
            "Your part of this set changed (your attributes, or the set's subset): read it again from the start, without a cursor."
        )
    }

    /// The cursor after `page`, read from this one, and whether the sync goes on: through
    /// the page's last entry while pages remain up to the checkpoint, then through the
    /// checkpoint itself (the set's last position when the sync began).
    func next(after page: EntityLogPage) -> (cursor: SyncCursor, more: Bool) {
        let checkpoint = checkpoint ?? page.lastPosition
        guard page.hasMore, let last = page.entries.last?.position, last < checkpoint else {
            return (
                SyncCursor(position: max(checkpoint, position), checkpoint: nil, fromStart: false, view: view), false
            )
        }
        return (SyncCursor(position: last, checkpoint: checkpoint, fromStart: fromStart, view: view), true)
    }

    /// Marks a sync under way from an empty copy.
    private static let fromStartMark = "s"

    /// A decimal position: digits only, no sign and no leading zero.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            text == "0" || text.first != "0"
        else { return nil }
        guard let value = Int64(text) else { return nil }
        return value
    }
}

import Foundation
import GangwayProtocol
import GangwayServices
import Testing

@Suite("The local store: a set's entities as a typed table the app filters, sorts, pages, counts and observes")
struct LocalEntityStoreTests {
    static let schema: EntitySchema = {
        // Constants the schema takes; the first test fails if it ever does not.
        (try? EntitySchema(
            fields: [
                EntityField("stand", .text, indexed: true), EntityField("status", .text, required: true),
                EntityField("pressure", .decimal), EntityField("cycles", .integer, indexed: true),
                EntityField("due", .dateTime, indexed: true), EntityField("urgent", .boolean),
            ]
        )) ?? { preconditionFailure("the test schema") }()
    }()

    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    /// `count` checks drawn from `seed`: each field sometimes missing.
    static func checks(_ count: Int, seed: UInt64) -> [OfflineWork.ShownEntity] {
        var random = Mix(seed)
        return (0..<count).map { index in
            var fields = ["status": ["open", "done", "deferred"][random.below(3)]]
            if random.below(10) > 0 { fields["stand"] = String(10 + random.below(6)) }
            if random.below(10) > 0 { fields["pressure"] = "\(random.below(20)).\(random.below(10))" }
            if random.below(10) > 0 { fields["cycles"] = String(random.below(3000) - 500) }
            if random.below(10) > 0 {
                let due = time.addingTimeInterval(Double(random.below(100_000)) + Double(random.below(1000)) / 1000)
                fields["due"] = due.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            }
            if random.below(10) > 0 { fields["urgent"] = random.below(2) == 0 ? "true" : "false" }
            return OfflineWork.ShownEntity(
                entity: AppEntity(
                    id: String(format: "c-%05d", index),
                    fields: fields,
                    version: 1,
                    updatedAt: time,
                    updatedBy: "admin"
                ),
                pending: random.below(20) == 0
            )
        }
    }

    /// The answer worked out in Swift, field by field, as the store's documentation says.
    static func number(_ text: String?, of field: String) -> Double? {
        guard let text, !text.isEmpty else { return nil }
        switch schema.field(named: field)?.type {
        case .dateTime?:
            return (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))?
                .timeIntervalSince1970
        case .boolean?: return text == "true" ? 1 : 0
        case .text?: return nil
        default: return Double(text)
        }
    }

    /// Each check's fields as numbers, worked out once.
    static func numbers(_ all: [OfflineWork.ShownEntity]) -> [String: [String: Double]] {
        var numbers: [String: [String: Double]] = [:]
        for shown in all {
            for (field, text) in shown.entity.fields {
                numbers[shown.id, default: [:]][field] = number(text, of: field)
            }
        }
        return numbers
    }

    static func expected(
        _ query: LocalQuery,
        over all: [OfflineWork.ShownEntity],
        numbers: [String: [String: Double]]? = nil
    ) -> [String] {
        let numbers = numbers ?? Self.numbers(all)
        func value(_ entity: AppEntity, _ field: String) -> Double? {
            numbers[entity.id]?[field] ?? number(entity.fields[field], of: field)
        }
        let operands = query.filters.map { number($0.value, of: $0.field) }
        func compare(_ entity: AppEntity, _ field: String, with operand: String, _ right: Double?) -> Int? {
            guard let text = entity.fields[field], !text.isEmpty else { return nil }
            if schema.field(named: field)?.type == .text { return text < operand ? -1 : text == operand ? 0 : 1 }
            let (left, right) = (value(entity, field)!, right!)
            return left < right ? -1 : left == right ? 0 : 1
        }
        let passing = all.filter { shown in
            zip(query.filters, operands).allSatisfy { filter, right in
                guard let order = compare(shown.entity, filter.field, with: filter.value, right) else {
                    return filter.comparison == .notEquals
                }
                switch filter.comparison {
                case .equals: return order == 0
                case .notEquals: return order != 0
                case .less: return order < 0
                case .lessOrEqual: return order <= 0
                case .greater: return order > 0
                case .greaterOrEqual: return order >= 0
                }
            }
        }
        let sorted = passing.sorted { a, b in
            for order in query.order {
                let (x, y) = (
                    a.entity.fields[order.field].flatMap { $0.isEmpty ? nil : $0 },
                    b.entity.fields[order.field].flatMap { $0.isEmpty ? nil : $0 }
                )
                if x == y { continue }
                guard let x else { return !order.descending }
                guard let y else { return order.descending }
                let less: Bool
                if schema.field(named: order.field)?.type == .text {
                    less = x < y
                } else {
                    less = value(a.entity, order.field)! < value(b.entity, order.field)!
                }
                if value(a.entity, order.field) == value(b.entity, order.field),
                    schema.field(named: order.field)?.type != .text
                {
                    continue
                }
                return order.descending ? !less : less
            }
            return a.entity.id < b.entity.id
        }
        let page = sorted.dropFirst(query.offset)
        return (query.limit.map { Array(page.prefix($0)) } ?? Array(page)).map(\.entity.id)
    }

    @Test("random filters, orders and pages over 1,000 checks answer as worked out in Swift, counts too")
    func answersAsWorkedOut() throws {
        let store = try LocalEntityStore()
        let all = Self.checks(1_000, seed: 7)
        try store.replace("checks", schema: Self.schema, with: all)
        let numbers = Self.numbers(all)
        var random = Mix(11)
        let operands: [String: [String]] = [
            "stand": ["10", "12", "15"], "status": ["open", "done"], "pressure": ["5.5", "10", "0.0"],
            "cycles": ["0", "-100", "1500"], "due": ["2027-01-15T08:00:00Z", "2027-01-15T20:00:00.5Z"],
            "urgent": ["true", "false"],
        ]
        let fields = operands.keys.sorted()
        for round in 0..<80 {
            let filters = (0..<random.below(3)).map { _ in
                let field = fields[random.below(fields.count)]
                return LocalQuery.Filter(
                    field,
                    LocalQuery.Filter.Comparison.allCases[random.below(6)],
                    operands[field]![random.below(operands[field]!.count)]
                )
            }
            let order = (0..<random.below(3)).map { _ in
                LocalQuery.Order(fields[random.below(fields.count)], descending: random.below(2) == 0)
            }
            let query = LocalQuery(
                "checks",
                where: filters,
                sortedBy: order,
                limit: random.below(3) == 0 ? nil : 1 + random.below(50),
                offset: random.below(4) == 0 ? random.below(100) : 0
            )
            #expect(
                try store.entities(query).map(\.entity.id) == Self.expected(query, over: all, numbers: numbers),
                "round \(round): \(query)"
            )
            var whole = query
            (whole.limit, whole.offset) = (nil, 0)
            #expect(try store.count(query) == Self.expected(whole, over: all, numbers: numbers).count, "round \(round)")
        }
        // What pending changes made of an entity is marked so.
        #expect(try store.entities(LocalQuery("checks")).filter(\.pending).map(\.id) == all.filter(\.pending).map(\.id))
    }

    @Test(
        "a field the schema does not declare, a value not of its type, or a name that is none, is refused with a sentence"
    )
    func refusals() throws {
        let store = try LocalEntityStore()
        try store.replace("checks", schema: Self.schema, with: Self.checks(10, seed: 1))
        let cases: [(LocalQuery.Filter, String)] = [
            (.init("colour", .equals, "red"), "colour is not a field of checks."),
            (.init("cycles", .equals, "many"), "cycles is a whole number, as 42."),
            (.init("due", .less, "tomorrow"), "due is a UTC date-time, as 2026-12-03T14:05:00Z."),
            (
                .init("x'); DROP TABLE", .equals, "1"),
                "'x'); DROP TABLE' is not a field name (a letter, then letters, digits and '_')."
            ),
        ]
        for (filter, message) in cases {
            let error = #expect(throws: LocalQueryError.self) {
                try store.entities(LocalQuery("checks", where: [filter]))
            }
            #expect(error?.message == message)
        }
        #expect(try store.entities(LocalQuery("never-filled")).isEmpty)
        #expect(try store.count(LocalQuery("never-filled")) == 0)
    }

    @Test("a set without a schema is queried by its fields' text")
    func untyped() throws {
        let store = try LocalEntityStore()
        let all = Self.checks(200, seed: 3)
        try store.replace("checks", schema: nil, with: all)
        let open = try store.entities(
            LocalQuery("checks", where: [.init("status", .equals, "open")], sortedBy: [.init("stand")])
        )
        #expect(Set(open.map(\.id)) == Set(all.filter { $0.entity["status"] == "open" }.map(\.id)))
        #expect(try store.count(LocalQuery("checks", where: [.init("colour", .equals, "red")])) == 0)
    }

    @Test("an observed query answers now, and again when a fill changes its set")
    func observed() async throws {
        let store = try LocalEntityStore()
        try store.replace("checks", schema: Self.schema, with: Self.checks(50, seed: 5))
        let query = LocalQuery("checks", where: [.init("status", .equals, "open")])
        var answers = try store.observe(query).makeAsyncIterator()
        let first = try #require(try await answers.next())
        let now = try store.entities(query).map(\.id)
        #expect(first.map(\.id) == now)
        try store.replace("checks", schema: Self.schema, with: Self.checks(80, seed: 6))
        var next = try #require(try await answers.next())
        // An observation may answer the state it started from once more before the change.
        if next.map(\.id) == first.map(\.id) { next = try #require(try await answers.next()) }
        #expect(next.map(\.id) == Self.expected(query, over: Self.checks(80, seed: 6)))
    }
}

/// A seeded generator, so that a failing round repeats.
private struct Mix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

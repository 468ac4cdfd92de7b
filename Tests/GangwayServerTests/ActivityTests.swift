import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "The overview's activity and what needs attention: counted as it happens, by hour and by day",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ActivityTests {
    static func activity(_ api: API, _ query: String) async throws -> Components.Schemas.Activity {
        try await api.admin(.get, "/admin/activity\(query)").decode(Components.Schemas.Activity.self)
    }

    static func attention(_ api: API, _ query: String = "") async throws -> Components.Schemas.Attention {
        try await api.admin(.get, "/admin/attention\(query)").decode(Components.Schemas.Attention.self)
    }

    /// Moves `clock` to 10:05 UTC of the next day, so an hour later is the same day.
    static func toMorning(_ clock: ManualWallClock) {
        let now = clock.now().timeIntervalSince1970
        let nextDay = (now / 86_400).rounded(.down) * 86_400 + 86_400
        clock.advance(by: .seconds(nextDay + 10 * 3600 + 300 - now))
    }

    /// The buckets' values of one kind, newest last.
    static func values(
        _ activity: Components.Schemas.Activity,
        _ kind: (Components.Schemas.ActivityBucket) -> Int64
    ) -> [Int64] {
        activity.buckets.map(kind)
    }

    @Test(
        "sign-ins and failures, registrations, changes by outcome; a device active once an hour and once a day",
        arguments: Backend.available
    )
    func counted(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        Self.toMorning(fixture.clock)
        try await fixture.runSeeded { api in
            let (alice, bob) = try await ChangeUploadTests.prepared(api)
            #expect(try await api.signInReply("alice", password: "wrong-password").status == .unauthorized)
            try await api.admin(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                json: #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "8.0 bar"}}"#
            ).expect(.ok)
            let applied = alice.change(sequence: 1, ["status": "done"])
            let results = try await ChangeUploadTests.upload(
                [
                    applied, alice.change(sequence: 2, ["reading": "8.2 bar"]),
                    alice.change(sequence: 3, ["aircraft": "D"]),
                ],
                by: alice,
                api: api
            )
            #expect(results.map(\.outcome) == [.applied, .conflict, .rejected])
            // A duplicate is no new change.
            #expect(try await ChangeUploadTests.upload([applied], by: alice, api: api).map(\.outcome) == [.duplicate])

            let day = try await Self.activity(api, "?period=day")
            #expect(day.period == .day)
            #expect(day.bucketSeconds == ._3600)
            #expect(day.buckets.count == 24)
            let hour = try #require(day.buckets.last)
            let start = Date(
                timeIntervalSince1970: (fixture.clock.now().timeIntervalSince1970 / 3600).rounded(.down) * 3600
            )
            #expect(hour.start == start)
            #expect(day.buckets.first?.start == start.addingTimeInterval(-23 * 3600))
            #expect(hour.signIns == 2)
            #expect(hour.signInFailures == 1)
            #expect(hour.registrations == 2)
            #expect(hour.activeDevices == 2, "alice and bob, each once however often they called")
            #expect(hour.changes == 3)
            #expect(hour.conflicts == 1)
            #expect(hour.refusedChanges == 1)
            #expect(day.buckets.dropLast().allSatisfy { $0.signIns == 0 && $0.activeDevices == 0 && $0.changes == 0 })

            // An hour later, alice's contact counts in the new hour, and not again in the day.
            fixture.clock.advance(by: .seconds(3600))
            _ = try await ChangeUploadTests.upload([alice.change(sequence: 4, ["note": "ok"])], by: alice, api: api)
            let later = try await Self.activity(api, "?period=day")
            #expect(Self.values(later, \.activeDevices).suffix(2) == [2, 1])
            let week = try await Self.activity(api, "?period=week")
            #expect(week.bucketSeconds == ._86400)
            #expect(week.buckets.count == 7)
            #expect(Self.values(week, \.activeDevices).last == 2)
            #expect(Self.values(week, \.changes).last == 4)
            #expect(Self.values(week, \.signIns).last == 2)

            // The next day, bob signs in again, and his contact counts him once more, on that day.
            fixture.clock.advance(by: .seconds(86_400))
            let token = try await api.signIn(bob.name)
            #expect(try await api.send(.get, "/apps/checks/data/checks", token: token).status == .ok)
            let month = try await Self.activity(api, "?period=month&app=checks")
            #expect(month.buckets.count == 30)
            #expect(Self.values(month, \.activeDevices).suffix(2) == [2, 1])
            #expect(Self.values(month, \.signIns).suffix(2) == [2, 1])
            #expect(Self.values(month, \.registrations).reduce(0, +) == 2)

            // Another app's figures are its own; every app's add up.
            try await api.admin(.post, "/admin/apps", json: #"{"appID": "other", "name": "Other"}"#).expect(.created)
            #expect(try await Self.activity(api, "?app=other").buckets.allSatisfy { $0.signIns == 0 })
            #expect(Self.values(try await Self.activity(api, ""), \.signIns).reduce(0, +) == 3, "a week by default")
        }
    }

    @Test(
        "a refresh is no sign-in; a bad period, an unknown app, no admin token are refused",
        arguments: Backend.available
    )
    func refusals(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api throws in
            for (query, status) in [
                ("?period=year", HTTPResponse.Status.badRequest), ("?app=nowhere", .notFound), ("?app=", .notFound),
            ] {
                #expect(try await api.admin(.get, "/admin/activity\(query)").status == status, "\(query)")
            }
            #expect(try await api.admin(.get, "/admin/attention?app=nowhere").status == .notFound)
            for path in ["/admin/activity", "/admin/attention"] {
                #expect(try await api.send(.get, path).status == .unauthorized)
            }

            // An approved device code is a sign-in; its refresh is none.
            try await OAuthDeviceGrantTests.oauth2(api)
            let tokens = try await OAuthDeviceGrantTests.signedIn(api)
            try api.expectStatus(try await OAuthDeviceGrantTests.refresh(api, tokens.refresh), .ok)
            #expect(Self.values(try await Self.activity(api, "?period=day"), \.signIns).last == 1)
        }
    }

    @Test(
        "attention: conflicts and refusals of the last 7 days, blocked users, locked registrations, devices past their lock or wipe period",
        arguments: Backend.available
    )
    func attention(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        Self.toMorning(fixture.clock)
        try await fixture.runSeeded { api in
            let quiet = try await Self.attention(api)
            #expect(quiet.conflicts == 0 && quiet.blockedUserCount == 0 && quiet.overdueDeviceCount == 0)

            let (alice, bob) = try await ChangeUploadTests.prepared(api)
            try await api.admin(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                json: #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "8.0 bar"}}"#
            ).expect(.ok)
            _ = try await ChangeUploadTests.upload(
                [alice.change(sequence: 1, ["reading": "8.2 bar"]), alice.change(sequence: 2, ["aircraft": "D"])],
                by: alice,
                api: api
            )
            try await api.admin(.patch, "/admin/users/bob", json: #"{"blocked": true}"#).expect(.ok)
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(bob.registrationID)",
                json: #"{"status": "locked"}"#
            ).expect(.ok)
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"""
                    {"settings": {"blockWipingPolicy": {"blockWipeEnabled": true, "blockDisconnectedPeriod": 3, "wipeDisconnectedPeriod": 10}}}
                    """#
            ).expect(.ok)

            let now = try await Self.attention(api)
            #expect(now.conflicts == 1)
            #expect(now.refusedChanges == 1)
            #expect(now.blockedUsers == ["bob"])
            #expect(now.blockedUserCount == 1)
            #expect(now.lockedDevices == 1)
            #expect(now.overdueDeviceCount == 0)

            // Four days without contact: alice's device is past the lock period (bob's is
            // locked already, so not listed).
            fixture.clock.advance(by: .seconds(4 * 86_400))
            let locking = try await Self.attention(api, "?app=checks")
            #expect(locking.overdueDeviceCount == 1)
            #expect(locking.overdueDevices.map(\.userID) == ["alice"])
            #expect(locking.overdueDevices.first?.past == .lock)
            #expect(locking.overdueDevices.first?.registrationID == alice.registrationID)

            // Past the wipe period, and past the 7 days conflicts are counted over.
            fixture.clock.advance(by: .seconds(7 * 86_400))
            let wiping = try await Self.attention(api)
            #expect(wiping.overdueDevices.first?.past == .wipe)
            #expect(wiping.conflicts == 0)
            #expect(wiping.refusedChanges == 0)

            // In contact again (signed in and registered anew): nothing overdue.
            _ = try await ChangeUploadTests.author("alice", api: api)
            #expect(try await Self.attention(api).overdueDeviceCount == 0)
        }
    }

    @Test("contacts of one device at once count it once in the hour and the day", arguments: Backend.available)
    func concurrentContacts(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        Self.toMorning(fixture.clock)
        try await fixture.runSeeded { api in
            let registration = try await api.register(token: try await api.signIn("alice"))
            let storage = fixture.server.storage
            // The next hour: the registration's own contact was in the one before.
            fixture.clock.advance(by: .seconds(3600))
            let now = fixture.clock.now()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await storage.touchDevice(
                            registrationID: registration.registrationID,
                            at: now.addingTimeInterval(Double(index))
                        )
                    }
                }
                try await group.waitForAll()
            }
            let day = try await Self.activity(api, "?period=day")
            #expect(Self.values(day, \.activeDevices).suffix(2) == [1, 1], "once in each hour")
            #expect(Self.values(try await Self.activity(api, "?period=week"), \.activeDevices).last == 1)
        }
    }

    @Test("the counts are kept for 400 days, then purged with the expired rows", arguments: Backend.available)
    func purged(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            try await storage.countActivity([.signIns: 2, .changes: 0], appID: "checks", at: fixture.clock.now())
            func kept() async throws -> [Int] {
                try await storage.activity(
                    appID: "checks",
                    kinds: ActivityKind.allCases,
                    from: .distantPast,
                    to: .distantFuture,
                    per: .day
                ).map(\.count)
            }
            #expect(try await kept() == [2], "a count of 0 is no row")
            fixture.clock.advance(by: .seconds(399 * 86_400))
            try await fixture.server.purgeExpired()
            #expect(try await kept() == [2])
            fixture.clock.advance(by: .seconds(2 * 86_400))
            // The server's own purge, which runs as it starts, may come first on a loaded
            // machine (it reads the same clock): between the two, the row goes once.
            let purged = try await fixture.server.purgeExpired()
            #expect(purged == 1 || purged == 0)
            #expect(try await kept().isEmpty)
            #expect(try await fixture.server.purgeExpired() == 0, "nothing is purged twice")
        }
    }

    @Test(
        "the console's overview: what needs attention, each linked to where to act, and the activity drawn as SVG with its figures",
        arguments: Backend.available
    )
    func overview(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        Self.toMorning(fixture.clock)
        try await fixture.runSeeded { api in
            let (alice, _) = try await ChangeUploadTests.prepared(api)
            #expect(try await api.signInReply("alice", password: "wrong-password").status == .unauthorized)
            _ = try await ChangeUploadTests.upload([alice.change(sequence: 1, ["aircraft": "D"])], by: alice, api: api)
            try await api.admin(.patch, "/admin/users/bob", json: #"{"blocked": true}"#).expect(.ok)
            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)

            let page = try await browser.get("/console?period=day")
            try page.expect(.ok)
            let html = page.text
            #expect(html.contains(#"<a href="/console/users/bob">bob is blocked</a>"#))
            #expect(html.contains(#"<a href="/console/data?outcome=rejected">1 change refused in the last 7 days</a>"#))
            #expect(!html.contains("conflict in the last"), "none happened")
            #expect(html.contains(#"<a href="/console?period=day" aria-current="page">Day</a>"#))
            #expect(html.contains(#"<a href="/console?period=month">Month</a>"#))
            #expect(html.contains(#"<option value="" selected>Every app</option>"#))
            #expect(html.contains("The last 24 hours, by hour, every app (UTC)."))
            // Four charts, each an image with a name and a summary, its bars' tooltips
            // saying what they count, and the same figures as a table.
            #expect(html.components(separatedBy: #"role="img""#).count == 5)
            let hour = String(format: "%02d:00", Calendar.utc.component(.hour, from: fixture.clock.now()))
            #expect(html.contains("<title>\(hour): 2 sign-ins</title>"))
            #expect(html.contains("<title>\(hour): 1 failed sign-in</title>"))
            #expect(html.contains("<title>\(hour): 1 refused</title>"))
            #expect(html.contains("In the last 24 hours: 2 sign-ins, 1 failed sign-in; at most 3 in one hour."))
            #expect(
                html.contains(
                    #"<tr><th scope="row">\#(hour)</th><td data-label="Sign-ins">2</td><td data-label="Failed sign-ins">1</td></tr>"#
                )
            )
            #expect(!html.contains("<script") && !html.contains("style="), "no script, no inline style")

            // One app's week; a period or app the console does not know shows the week of every app.
            let week = try await browser.get("/console?period=week&app=checks").text
            #expect(week.contains(#"<option value="checks" selected>"#))
            #expect(week.contains("The last 7 days, by day, Ground checks (UTC)."))
            #expect(week.contains(#"<a href="/console/data?outcome=rejected&amp;app=checks">"#))
            let unknown = try await browser.get("/console?period=%3Cb%3E&app=%3Cb%3E").text
            #expect(unknown.contains("The last 7 days, by day, every app (UTC)."))
            #expect(!unknown.contains("<b>"))
        }
    }
}

extension Calendar {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

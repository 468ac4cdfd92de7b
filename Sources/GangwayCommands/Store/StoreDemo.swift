import ArgumentParser
import Foundation
import GangwayPolicy
import GangwayStore

/// `gangway store demo`: a guided tour of the secure store in a temporary directory.
struct StoreDemo: StoreSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show the secure store at work in a temporary directory, step by step."
    )

    func perform() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gangway-demo-\(UUID().uuidString.prefix(8))"
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = StoreOptions.environment(deviceKeys: root.appendingPathComponent("device-keys").path)
        let location = SecureStoreLocation(
            directory: root.appendingPathComponent("store"),
            environment: environment
        )
        let policy = PasscodePolicy(minimumLength: 8, requiresDigit: true, retryLimit: 3)
        let passcode = "Fuel-Check-2026"
        let newPasscode = "Tyre-Check-2027"

        print("Gangway secure store demo, in \(root.path)\n")
        print("1. The policy: \(StoreInfoFormatter.describe(policy))")
        for candidate in ["1357", "password1"] {
            let failed = policy.evaluate(Secret(candidate)).failedRules.map(\.summary).joined(separator: "; ")
            print("   \"\(candidate)\" is refused: \(failed)")
        }
        let clock = ContinuousClock()
        var store: SecureStore!
        let created = try clock.measure {
            store = try location.create(protection: .passcode(Secret(passcode)), policy: policy)
        }
        print(
            "   created store \(store.id.uuidString.lowercased()) with \"\(passcode)\" in \(milliseconds(created)) ms"
        )

        print("\n2. Two values go in: fuel = 8200 kg, tyres = 14.5 bar")
        try store.put("8200 kg", forKey: "aircraft.D-AIBL.fuel")
        try store.put("14.5 bar", forKey: "aircraft.D-AIBL.tyres")
        store.close()

        let database = location.directory.appendingPathComponent("store.sqlite")
        var bytes = (try? Data(contentsOf: database)) ?? Data()
        bytes.append((try? Data(contentsOf: URL(fileURLWithPath: database.path + "-wal"))) ?? Data())
        print("\n3. On disk: \(bytes.count) bytes of SQLite. Readable in them:")
        for needle in ["8200 kg", "D-AIBL", "fuel", passcode] {
            print("   \"\(needle)\": \(bytes.range(of: Data(needle.utf8)) == nil ? "nowhere" : "FOUND")")
        }

        print("\n4. Without unlocking, the store tells:")
        print(
            StoreInfoFormatter.format(try location.info()).split(separator: "\n").map { "   " + $0 }.joined(
                separator: "\n"
            )
        )

        print("\n5. A wrong passcode:")
        do {
            _ = try location.unlock(passcode: "Wrong-Guess-1")
        } catch {
            print("   \(error)")
        }

        print("\n6. The right one:")
        store = try location.unlock(passcode: Secret(passcode))
        print(
            "   fuel = \(try store.string(forKey: "aircraft.D-AIBL.fuel") ?? "?"), keys: \(try store.keys().joined(separator: ", "))"
        )

        let changed = try clock.measure {
            try store.changePasscode(current: Secret(passcode), new: Secret(newPasscode))
        }
        print(
            "\n7. Passcode changed to \"\(newPasscode)\" in \(milliseconds(changed)) ms: the data key was re-wrapped, no value re-encrypted"
        )
        store.close()

        print("\n8. Three wrong passcodes in a row (the retry limit is 3):")
        for attempt in 1...3 {
            do {
                _ = try location.unlock(passcode: Secret("Wrong-Guess-\(attempt)"))
            } catch {
                print("   \(attempt): \(error)")
            }
        }
        print(
            "   store directory still there: \(FileManager.default.fileExists(atPath: location.directory.path) ? "yes" : "no")"
        )
        print("\nDone. Try it yourself: gangway store --help")
    }

    private func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

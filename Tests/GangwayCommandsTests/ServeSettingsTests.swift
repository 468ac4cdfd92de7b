import ArgumentParser
import Foundation
import GangwayServer
import GangwaySystem
import GangwayTesting
import Testing

@testable import GangwayCommands

/// `gangway serve`'s settings from a configuration file and the environment: the command
/// line wins over the environment, the environment over the file; what the file does not
/// know, a value of the wrong type, an action or a password is refused in one sentence.
@Suite("Serve settings: a file, the environment and the command line, in that order; anything else refused")
struct ServeSettingsTests {
    /// A file of `text`, 0600, in a new directory of the caller's.
    static func file(_ text: String, in directory: TemporaryDirectory, mode: mode_t = 0o600) throws -> String {
        let url = directory.appending("serve.json")
        try PrivateFiles.write(Data(text.utf8), to: url)
        chmod(url.path, mode)
        return url.path
    }

    @Test(
        "the file's settings come first, the environment's next, the command line's last; each says where it came from"
    )
    func order() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.file(
            #"{"port": 8443, "cache-seconds": 5, "trusted-proxy": ["10.0.0.0/8", "192.168.1.1"], "public-destinations-only": true, "host": "0.0.0.0"}"#,
            in: directory
        )
        let (arguments, origins) = try ServeSettings.arguments(
            ["--config", path, "--port", "9000"],
            environment: ["GANGWAY_CACHE_SECONDS": "7", "GANGWAY_LOG_LEVEL": "debug", "HOME": "/x"]
        )
        #expect(
            arguments == [
                "--cache-seconds", "5", "--host", "0.0.0.0", "--port", "8443", "--public-destinations-only",
                "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "192.168.1.1",
                "--cache-seconds", "7", "--config", path, "--port", "9000",
            ]
        )
        #expect(origins["port"] == .commandLine)
        #expect(origins["cache-seconds"] == .environment("GANGWAY_CACHE_SECONDS"))
        #expect(origins["host"] == .file(path) && origins["public-destinations-only"] == .file(path))
        #expect(origins["data-dir"] == nil)

        // Parsed as serve parses them: the last of each wins.
        let serve = try ServeCommand.parse(arguments)
        #expect(
            serve.port == 9000 && serve.cacheSeconds == 7 && serve.host == "0.0.0.0" && serve.publicDestinationsOnly
        )
        #expect(serve.trustedProxies == ["10.0.0.0/8", "192.168.1.1"])
        // GANGWAY_LOG_LEVEL is read where logging starts, for every command: named, not added.
        #expect(origins["log-level"] == .environment("GANGWAY_LOG_LEVEL"))
        let shown = serve.checkedConfiguration(origins: origins)
        #expect(shown.contains("port                      9000  (command line)"), "\(shown)")
        #expect(shown.contains("cache-seconds             7  (GANGWAY_CACHE_SECONDS)"), "\(shown)")
        #expect(shown.contains("host                      0.0.0.0  (\(path))"), "\(shown)")
        #expect(shown.contains("bcrypt-cost               12  (default)"), "\(shown)")
    }

    @Test("--config=FILE, the last --config, nothing past --; false flags and numbers as text")
    func forms() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.file(
            #"{"public-destinations-only": false, "port": "8081", "drain-seconds": 0}"#,
            in: directory
        )
        #expect(ServeSettings.configFile(in: ["--config", "a", "--config=\(path)"]) == path)
        #expect(ServeSettings.configFile(in: ["--", "--config", "a"]) == nil)
        let (arguments, _) = try ServeSettings.arguments(["--config=\(path)"], environment: [:])
        #expect(arguments == ["--drain-seconds", "0", "--port", "8081", "--config=\(path)"])
        let (fromEnvironment, _) = try ServeSettings.arguments(
            [],
            environment: ["GANGWAY_PUBLIC_DESTINATIONS_ONLY": "false", "GANGWAY_LOG_LEVEL": "debug"]
        )
        // GANGWAY_LOG_LEVEL is every command's own, read where logging starts.
        #expect(fromEnvironment.isEmpty)
    }

    @Test(
        "refused in one sentence naming the key: an unknown one, an action, a wrong type, a password, a file others can write",
        arguments: [
            (#"{"prot": 8443}"#, "no setting prot"),
            (#"{"demo": true}"#, "demo is an action, given on the command line only"),
            (#"{"restore": "/backup.sqlite"}"#, "restore is an action"),
            (#"{"port": true}"#, "port must be a string or a number"),
            (#"{"port": [8443]}"#, "port must be a string or a number"),
            (#"{"host": 5}"#, "host must be a string"),
            (#"{"data-dir": {"path": "/srv"}}"#, "data-dir must be a string"),
            (#"{"public-destinations-only": 1}"#, "public-destinations-only must be true or false"),
            (#"{"trusted-proxy": [1, 2]}"#, "trusted-proxy must be a list of strings"),
            (
                #"{"postgres": "postgres://gangway:s3cret@db/gangway"}"#,
                "belongs in a file of yours: give postgres-file"
            ),
            (#"[8443]"#, "not a JSON object of settings"),
            ("port: 8443", "not a JSON object of settings"),
        ]
    )
    func refused(text: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.file(text, in: directory)
        #expect {
            _ = try ServeSettings.arguments(["--config", path], environment: [:])
        } throws: { error in
            let description = String(describing: error)
            return description.contains(reason) && !description.contains("s3cret") && !description.contains("\n")
        }
    }

    @Test("a file others can write, or none at all, is refused; so is a password in GANGWAY_POSTGRES")
    func unsafe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.file(#"{"port": 8443}"#, in: directory, mode: 0o666)
        #expect(throws: ServeSettings.Refusal.self) {
            _ = try ServeSettings.arguments(["--config", path], environment: [:])
        }
        #expect(throws: ServeSettings.Refusal.self) {
            _ = try ServeSettings.arguments(["--config", directory.appending("none.json").path], environment: [:])
        }
        #expect {
            _ = try ServeSettings.arguments([], environment: ["GANGWAY_POSTGRES": "postgres://u:hunter2@h/d"])
        } throws: { error in
            "\(error)".contains("GANGWAY_POSTGRES") && !"\(error)".contains("hunter2")
        }
        // Without a password, the URL may come from anywhere.
        let (arguments, _) = try ServeSettings.arguments([], environment: ["GANGWAY_POSTGRES": "postgres://u@h/d"])
        #expect(arguments == ["--postgres", "postgres://u@h/d"])
    }

    @Test("a number with spaces around it is read as written; an empty --config is refused, not read as a directory")
    func spacesAndEmptyConfig() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.file(#"{"port": " 8443 ", "trace-sample-ratio": " 0.5"}"#, in: directory)
        let (arguments, _) = try ServeSettings.arguments(
            ["--config", path],
            environment: ["GANGWAY_CACHE_SECONDS": " 5"]
        )
        #expect(arguments.contains("8443") && arguments.contains("0.5") && arguments.contains("5"), "\(arguments)")
        for empty in [["--config", ""], ["--config=  "]] {
            #expect {
                _ = try ServeSettings.arguments(empty, environment: [:])
            } throws: { error in
                "\(error)" == "--config must name a file of settings"
            }
        }
    }

    @Test("a name the file gives twice is refused, however written; the same word in a value or a list is not")
    func repeatedNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for text in [
            #"{"port": 8443, "host": "::1", "port": 9443}"#,
            #"{"port": 8443, "p\u006frt": 9443}"#,
            "{\n  \"port\" : 1,\n  \"trusted-proxy\": [\"10.0.0.1\"],\n  \"port\":2}",
        ] {
            let path = try Self.file(text, in: directory)
            #expect {
                _ = try ServeSettings.arguments(["--config", path], environment: [:])
            } throws: { error in
                "\(error)" == "--config \(path): port is set twice; keep one"
            }
        }
        let path = try Self.file(
            #"{"host": "port", "trusted-proxy": ["port", "10.0.0.1"], "public-url": "http://h/\"port\"", "port": 1}"#,
            in: directory
        )
        let (arguments, _) = try ServeSettings.arguments(["--config", path], environment: [:])
        #expect(arguments.contains("--port"))
    }

    @Test("a number may be written as a string, and a list of one as that one string")
    func lenientShapes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.file(#"{"port": "8443", "trusted-proxy": "10.0.0.0/8"}"#, in: directory)
        let (arguments, _) = try ServeSettings.arguments(["--config", path], environment: [:])
        #expect(arguments.prefix(4) == ["--port", "8443", "--trusted-proxy", "10.0.0.0/8"], "\(arguments)")
    }

    @Test("a comma before a closing bracket is refused, naming its line; one in a value is not")
    func trailingCommas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (text, line) in [
            (#"{"port": 8443,}"#, 1),
            ("{\n  \"port\": 8443,\n  \"trusted-proxy\": [\"10.0.0.1\",\n  ]\n}", 3),
            ("{\n  \"port\": 8443 ,\r\n\t}", 2),
        ] {
            let path = try Self.file(text, in: directory)
            #expect {
                _ = try ServeSettings.arguments(["--config", path], environment: [:])
            } throws: { error in
                "\(error)"
                    == "--config \(path): line \(line) ends a list or object with a comma, which JSON does not allow; "
                    + "remove it"
            }
        }
        let path = try Self.file(#"{"public-url": "http://h/,}", "trusted-proxy": ["10.0.0.1", ",]"]}"#, in: directory)
        let (arguments, _) = try ServeSettings.arguments(["--config", path], environment: [:])
        #expect(arguments.contains("http://h/,}"), "\(arguments)")
    }

    @Test("a variable an action's name, or a letter or two from a setting's, is said; other GANGWAY_ variables are not")
    func unreadVariables() {
        let said = ServeSettings.unreadVariables(in: [
            "GANGWAY_PROT": "9000", "GANGWAY_DATADIR": "/srv", "GANGWAY_RESTORE": "/b", "GANGWAY_BCRYPT_COTS": "4",
            // Serve's own, and other programs' and commands': nothing to say.
            "GANGWAY_PORT": "9000", "GANGWAY_BCRYPT_COST": "4", "GANGWAY_ADMIN_TOKEN": "t",
            "GANGWAY_DEVICE_KEYS": "/k", "GANGWAY_POSTGRES_URL": "postgres://u@h/d", "PROT": "1",
        ])
        #expect(
            said == [
                "GANGWAY_BCRYPT_COTS is no setting of serve, and GANGWAY_BCRYPT_COST, which it looks meant for, is "
                    + "not read from the environment either: give it on the command line or in --config.",
                "GANGWAY_DATADIR is no setting of serve; did you mean GANGWAY_DATA_DIR?",
                "GANGWAY_PROT is no setting of serve; did you mean GANGWAY_PORT?",
                "GANGWAY_RESTORE is not read: --restore is an action, given on the command line only.",
            ],
            "\(said)"
        )
        #expect(ServeSettings.unreadVariables(in: ["GANGWAY_LOG_LEVEL": "debug", "HOME": "/root"]).isEmpty)
        #expect(
            ServeSettings.unreadVariables(in: ["GANGWAY_CONFIG": "/etc/gangway/serve.json"]) == [
                "GANGWAY_CONFIG is not read: --config is given on the command line only."
            ]
        )
    }

    @Test("the metrics' line says when they listen on every address; a password in a refused URL is hidden")
    func metricsLineAndHiddenPassword() throws {
        let local = ServeCommand.metricsLine(.init(host: "127.0.0.1", port: 0), boundPort: 9100)
        #expect(local == "Metrics: http://127.0.0.1:9100/metrics (Prometheus text format)")
        for host in ["0.0.0.0", "::"] {
            let everywhere = ServeCommand.metricsLine(.init(host: host, port: 0), boundPort: 9100)
            #expect(everywhere.contains("listening on every address (\(host))"), "\(everywhere)")
        }
        for url in ["https://u:s3cret@x", "https://u:s3cret@x y", "ftp://u:s3cret@x/?password=s3cret"] {
            #expect {
                _ = try URLOption.parse(url, option: "--public-url")
            } throws: { error in
                "\(error)".contains("--public-url '") && !"\(error)".contains("s3cret")
            }
        }
    }

    @Test("every option of serve is a setting or an action, and an out-of-range value names where it was set")
    func everyOption() throws {
        let help = ServeCommand.helpMessage(columns: 200)
        let options = Set(help.matches(of: /\n  --([a-z-]+)/).map { String($0.output.1) })
        #expect(options.contains("port") && options.contains("rotate-keys-days"))
        let known = Set(ServeSettings.kinds.keys).union(ServeSettings.actions).union([
            "config", "check-config", "help", "version",
        ])
        #expect(options.subtracting(known).isEmpty, "\(options.subtracting(known))")
        #expect(Set(ServeSettings.kinds.keys).isSubset(of: options))

        #expect(
            ServeSettings.naming(
                origins: ["port": .environment("GANGWAY_PORT")],
                in: "--port must be between 0 and 65535."
            )
                == "--port must be between 0 and 65535 (set by GANGWAY_PORT)."
        )
        #expect(ServeSettings.naming(origins: ["port": .commandLine], in: "--port is bad.") == "--port is bad.")
    }
}

import Mustache

/// The console's pages as Mustache templates, every value HTML-escaped (`{{name}}`; the
/// templates use no triple mustache). Each page fills the `main` block of `layout`: the
/// skip link, the header with the sections and the sign-out form, and the style sheet
/// served from the console's own origin (the pages carry no script and no inline style).
public struct ConsoleTemplates: Sendable {
    let library: MustacheLibrary

    public init() {
        var library = MustacheLibrary()
        for (name, text) in Self.sources.merging(Self.sectionSources, uniquingKeysWith: { first, _ in first }) {
            // The templates are constants of this file: one that does not parse is a bug
            // a test finds at once.
            try! library.register(text, named: name)
        }
        self.library = library
    }

    /// The HTML of `page`.
    public func render(_ page: some ConsolePage) -> String {
        library.render(page, withTemplate: page.template) ?? ""
    }

    static let sources: [String: String] = [
        "layout": """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Gangway console</title>
        {{#refresh}}<meta http-equiv="refresh" content="0; url={{.}}">{{/refresh}}
        <link rel="stylesheet" href="/console/console.css">
        </head>
        <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header>
        <p class="brand"><a href="/console">Gangway console</a></p>
        {{#signedIn}}
        <nav aria-label="Sections"><ul>
        {{#sections}}<li><a href="{{path}}"{{#current}} aria-current="page"{{/current}}>{{title}}</a></li>{{/sections}}
        </ul></nav>
        <form class="sign-out" method="post" action="/console/sign-out">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <span>{{name}} ({{role}})</span>
        <button type="submit">Sign out</button>
        </form>
        {{/signedIn}}
        </header>
        <main id="main">
        {{$main}}{{/main}}
        </main>
        </body>
        </html>
        """,
        "sign-in": """
        {{<layout}}{{$main}}
        <h1>Sign in</h1>
        {{#isFirstOperator}}<div class="first-operator" role="note"><p>No operator has been added yet. The first one is added on the server, by the account that runs it:</p>
        <p><code>gangway admin operators add YOUR-NAME --role admin</code></p>
        <p>(with the server's <code>--data-dir</code> when it is not the default). It prints a one-use link to set a password and a second factor; open it here.</p></div>{{/isFirstOperator}}
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert" id="sign-in-error">{{error}}</p>{{/error}}
        <form method="post" action="/console/sign-in">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="name">Operator name</label>
        <input id="name" name="name" autocomplete="username" required maxlength="64" value="{{name}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <label for="code">Code from your authenticator app</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="7">
        <button type="submit">Sign in</button>
        </form>
        {{#hasProviders}}<h2>Or through your company's sign-in</h2>
        <ul class="providers">{{#providers}}<li><a class="button" href="/console/sign-in/provider?app={{appID}}">Sign in at {{host}}</a></li>{{/providers}}</ul>{{/hasProviders}}
        {{/main}}{{/layout}}
        """,
        "enrol": """
        {{<layout}}{{$main}}
        <h1>Set up {{name}}</h1>
        {{#error}}<p class="error" role="alert" id="enrol-error">{{error}}</p>{{/error}}
        <p>You sign in to the console with a password and a code from an authenticator app.</p>
        <form method="post" action="/console/enrol">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="token" value="{{token}}">
        <label for="password">New password ({{minimumPasswordLength}} characters or more)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="{{minimumPasswordLength}}" maxlength="1024">
        <label for="confirmation">The same password again</label>
        <input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required maxlength="1024">
        <h2>Second factor</h2>
        <p>Scan the code with your authenticator app, or type the key into it.</p>
        {{#qrCode}}<img class="qr" src="{{qrCode}}" alt="QR code of the key below" width="250" height="250">{{/qrCode}}
        <p>Key: <code id="secret">{{secret}}</code></p>
        <label for="code">The code your app shows now</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="7">
        <button type="submit">Finish setting up</button>
        </form>
        {{/main}}{{/layout}}
        """,
        "confirm": """
        {{<layout}}{{$main}}
        <h1>{{title}}</h1>
        <p class="consequence" role="alert">{{consequence}}</p>
        <form method="post" action="{{action}}" class="confirm">
        <input type="hidden" name="form_token" value="{{formToken}}">
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
        {{/fields}}<input type="hidden" name="confirmed" value="yes">
        <button type="submit" class="danger">{{button}}</button>
        <a class="cancel" href="{{back}}">Cancel: do nothing</a>
        </form>
        {{/main}}{{/layout}}
        """,
        "message": """
        {{<layout}}{{$main}}
        <h1>{{title}}</h1>
        <p{{#isError}} class="error" role="alert"{{/isError}}>{{message}}</p>
        {{#link}}<p><a href="{{path}}">{{title}}</a></p>{{/link}}
        {{/main}}{{/layout}}
        """,
        "users": """
        {{<layout}}{{$main}}
        <h1>Users</h1>
        <form method="get" action="/console/users" role="search">
        <label for="q">User name or name holds</label>
        <input id="q" name="q" value="{{query}}" maxlength="128" autocomplete="off">
        <button type="submit">Search</button>
        </form>
        {{#refusal}}<p class="error" role="alert">{{refusal}}</p>{{/refusal}}
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#hasUsers}}
        <table>
        <caption>{{caption}}</caption>
        <thead><tr><th scope="col">User</th><th scope="col">Name</th><th scope="col">Signs in</th><th scope="col">Status</th><th scope="col">Added</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr></thead>
        <tbody>
        {{#users}}
        <tr><td data-label="User"><a href="/console/users/{{username}}">{{username}}</a></td><td data-label="Name">{{displayName}}{{#hasSameName}}<br><span class="warning">Same name as {{#sameNameAs}}<a href="/console/users/{{.}}">{{.}}</a> {{/sameNameAs}}</span>{{/hasSameName}}</td><td data-label="Signs in">{{signsIn}}</td><td data-label="Status">{{status}}</td><td data-label="Added">{{added}}</td>{{#canAct}}<td data-label="Actions">
        <form method="post" action="/console/users/{{username}}" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="q" value="{{query}}">
        <button type="submit" name="action" value="{{toggleAction}}">{{toggleTitle}}<span class="hidden"> {{username}}</span></button>
        <button type="submit" name="action" value="revoke" class="danger">End sessions…<span class="hidden"> of {{username}}</span></button>
        </form></td>{{/canAct}}</tr>
        {{/users}}
        </tbody>
        </table>
        {{/hasUsers}}
        {{^hasUsers}}<p>No user's user name or name holds “{{query}}”.</p>{{/hasUsers}}
        <p class="links">{{#firstPage}}<a href="{{firstPage}}">First page</a>{{/firstPage}}{{#next}}<a href="{{next}}" rel="next">Next page</a>{{/next}}</p>
        {{#canAct}}<h2>Add a user</h2>
        <form method="post" action="/console/users">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="username">User name</label>
        <input id="username" name="username" required maxlength="128" autocomplete="off" value="{{newUsername}}">
        <label for="displayName">Full name</label>
        <input id="displayName" name="displayName" maxlength="128" autocomplete="off" value="{{newDisplayName}}">
        <label for="new-password">Password</label>
        <input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
        <button type="submit">Add</button>
        </form>{{/canAct}}
        {{/main}}{{/layout}}
        """,
        "devices": """
        {{<layout}}{{$main}}
        <h1>Devices</h1>
        {{#hasApps}}
        <form method="get" action="/console/devices" role="search">
        <label for="app">App</label>
        <select id="app" name="app">{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/apps}}</select>
        <label for="user">User name starts with</label>
        <input id="user" name="user" maxlength="128" value="{{user}}" autocomplete="off">
        <label for="status">Status</label>
        <select id="status" name="status">{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/statuses}}</select>
        <button type="submit">Show</button>
        </form>
        {{/hasApps}}
        {{#refusal}}<p class="error" role="alert">{{refusal}}</p>{{/refusal}}
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        <p class="quiet">A lock ends the registration's sessions and refuses it, signing in on it included, until an operator unlocks it. A wipe erases the app's data on the device at its next contact, and cannot be undone.</p>
        {{#hasDevices}}
        <table>
        <caption>{{caption}}</caption>
        <thead><tr><th scope="col">User</th><th scope="col">Device</th><th scope="col">App version</th><th scope="col">Last contact</th><th scope="col">Status</th>{{#canAct}}<th scope="col">Actions</th>{{/canAct}}</tr></thead>
        <tbody>
        {{#devices}}
        <tr><td data-label="User">{{username}}</td><td data-label="Device">{{deviceName}} <span class="quiet">({{platform}}, {{registrationID}})</span></td><td data-label="App version">{{appVersion}}</td><td data-label="Last contact">{{lastContact}}</td><td data-label="Status">{{status}}</td>{{#canAct}}<td data-label="Actions">
        <form method="post" action="/console/devices/{{registrationID}}" class="actions">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="app" value="{{appID}}">
        <input type="hidden" name="user" value="{{filterUser}}">
        <input type="hidden" name="status" value="{{filterStatus}}">
        {{#actions}}<button type="submit" name="action" value="{{value}}"{{#danger}} class="danger"{{/danger}}>{{title}}<span class="hidden"> {{deviceName}} of {{username}}</span></button>{{/actions}}
        </form></td>{{/canAct}}</tr>
        {{/devices}}
        </tbody>
        </table>
        {{/hasDevices}}
        <p class="links">{{#firstPage}}<a href="{{firstPage}}">First page</a>{{/firstPage}}{{#next}}<a href="{{next}}" rel="next">Next devices</a>{{/next}}</p>
        {{^hasDevices}}<p>No registration of this app matches.</p>{{/hasDevices}}
        {{/main}}{{/layout}}
        """,
        "audit": """
        {{<layout}}{{$main}}
        <h1>Audit</h1>
        <p>Every change made through the admin API or the console, and the console's sign-ins, newest first. Nothing is ever removed.</p>
        <p class="downloads"><a href="/console/audit.csv" download>Download all as CSV</a> <a href="/console/audit.json" download>Download all as JSON</a></p>
        <form method="get" action="/console/audit" role="search">
        <label for="actor">Who (an operator's name, or admin token)</label>
        <input id="actor" name="actor" value="{{actor}}" maxlength="128" autocomplete="off">
        <label for="action">What</label>
        <select id="action" name="action">{{#actions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/actions}}</select>
        <button type="submit">Show</button>
        </form>
        {{#hasEvents}}
        <table>
        <caption>{{caption}}</caption>
        <thead><tr><th scope="col">ID</th><th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">Via</th><th scope="col">What</th><th scope="col">Target</th><th scope="col">From</th><th scope="col">Change</th></tr></thead>
        <tbody>
        {{#events}}<tr><td data-label="ID">{{id}}</td><td data-label="When (UTC)">{{at}}</td><td data-label="Who">{{actor}}</td><td data-label="Via">{{via}}</td><td data-label="What">{{action}}</td><td data-label="Target">{{target}}</td><td data-label="From">{{address}}</td><td data-label="Change">{{detail}}</td></tr>
        {{/events}}
        </tbody>
        </table>
        {{/hasEvents}}
        {{^hasEvents}}{{#isFiltered}}<p>No event matches the filter.</p>{{/isFiltered}}{{^isFiltered}}<p>The audit is empty.</p>{{/isFiltered}}{{/hasEvents}}
        <p class="links">{{#newest}}<a href="{{newest}}">Newest events</a>{{/newest}}{{#older}}<a href="{{older}}" rel="next">Older events</a>{{/older}}</p>
        {{/main}}{{/layout}}
        """,
        "overview": """
        {{<layout}}{{$main}}
        <h1>Overview</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <ul class="figures">
        {{#figures}}<li><span class="label">{{label}}</span> <span class="value">{{value}}</span></li>{{/figures}}
        </ul>
        <h2>Needs attention</h2>
        {{#hasAttention}}<ul class="attention">{{#attention}}<li><a href="{{path}}">{{text}}</a></li>{{/attention}}</ul>{{/hasAttention}}
        {{^hasAttention}}<p>Nothing needs attention.</p>{{/hasAttention}}
        {{#hasOverdue}}
        <table>
        <caption>{{overdueCaption}}</caption>
        <thead><tr><th scope="col">User</th><th scope="col">Device</th><th scope="col">App</th><th scope="col">Last contact</th><th scope="col">Past</th></tr></thead>
        <tbody>
        {{#overdue}}<tr><td data-label="User">{{user}}</td><td data-label="Device"><a href="{{path}}">{{device}}</a></td><td data-label="App">{{app}}</td><td data-label="Last contact">{{lastContact}}</td><td data-label="Past">{{past}}</td></tr>{{/overdue}}
        </tbody>
        </table>
        {{/hasOverdue}}
        <h2>Activity</h2>
        <nav aria-label="Period"><ul>
        {{#periods}}<li><a href="{{path}}"{{#current}} aria-current="page"{{/current}}>{{title}}</a></li>{{/periods}}
        </ul></nav>
        <form method="get" action="/console" role="search">
        <input type="hidden" name="period" value="{{period}}">
        <label for="app">App</label>
        <select id="app" name="app">{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{title}}</option>{{/apps}}</select>
        <button type="submit">Show</button>
        </form>
        <p class="quiet">{{span}}</p>
        <div class="charts">
        {{#charts}}{{>chart}}{{/charts}}
        </div>
        {{/main}}{{/layout}}
        """,
        "chart": """
        <section class="chart" aria-labelledby="{{id}}-heading">
        <h3 id="{{id}}-heading">{{title}}</h3>
        <svg viewBox="0 0 {{width}} {{height}}" role="img" aria-labelledby="{{id}}-title {{id}}-summary" focusable="false">
        <title id="{{id}}-title">{{title}}</title>
        {{#gridLines}}<line class="grid" x1="{{plotLeft}}" x2="{{plotRight}}" y1="{{y}}" y2="{{y}}"/><text class="tick" x="{{plotLeft}}" dx="-6" y="{{labelY}}" text-anchor="end">{{label}}</text>{{/gridLines}}
        {{#bars}}<rect class="{{style}}" x="{{x}}" y="{{y}}" width="{{width}}" height="{{height}}"><title>{{label}}</title></rect>{{/bars}}
        {{#ticks}}<text class="tick" x="{{x}}" y="{{y}}" text-anchor="middle">{{label}}</text>{{/ticks}}
        </svg>
        <p id="{{id}}-summary">{{summary}}</p>
        {{#hasLegend}}<ul class="legend">{{#legend}}<li><span class="swatch {{style}}"></span>{{name}}</li>{{/legend}}</ul>{{/hasLegend}}
        <details><summary>Figures<span class="hidden"> of {{title}}</span></summary>
        <table><thead><tr><th scope="col">From (UTC)</th>{{#columns}}<th scope="col">{{value}}</th>{{/columns}}</tr></thead>
        <tbody>{{#rows}}<tr><th scope="row">{{label}}</th>{{#cells}}<td data-label="{{column}}">{{value}}</td>{{/cells}}</tr>{{/rows}}</tbody></table>
        </details>
        </section>
        """,
    ]

    /// The style sheet every page links to.
    public static let styleSheet = """
        body { font-family: system-ui, sans-serif; margin: 0; line-height: 1.45; color: #1d1d1f; background: #fff; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: 0.5rem; z-index: 1; }
        header { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; padding: 0.75rem 1.5rem; background: #f2f4f7; border-bottom: 1px solid #c9ced6; }
        .brand { margin: 0; font-weight: 700; }
        .brand a { color: inherit; text-decoration: none; }
        nav ul { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; margin: 0; padding: 0; }
        nav a { color: #0b4f9c; }
        nav a[aria-current="page"] { font-weight: 700; color: #1d1d1f; }
        .sign-out { margin-left: auto; display: flex; gap: 0.5rem; align-items: center; }
        main { padding: 1.5rem; max-width: 80rem; }
        label { display: block; margin-top: 1rem; font-weight: 600; }
        textarea { display: block; width: 100%; max-width: 40rem; box-sizing: border-box; font: inherit; font-size: 1.05rem; padding: 0.55rem; margin-top: 0.3rem; border: 1px solid #6e7781; border-radius: 4px; }
        input { display: block; width: 100%; max-width: 28rem; box-sizing: border-box; font-size: 1.05rem; padding: 0.55rem; margin-top: 0.3rem; border: 1px solid #6e7781; border-radius: 4px; }
        button { font-size: 1.05rem; padding: 0.55rem 1.1rem; margin-top: 1.25rem; border: 1px solid #0b4f9c; border-radius: 4px; background: #0b4f9c; color: #fff; cursor: pointer; }
        a.button { display: inline-block; font-size: 1.05rem; padding: 0.55rem 1.1rem; border: 1px solid #0b4f9c; border-radius: 4px; background: #0b4f9c; color: #fff; text-decoration: none; }
        .providers { list-style: none; padding: 0; }
        .providers li { margin: 0.5rem 0; }
        .sign-out button { margin-top: 0; padding: 0.3rem 0.8rem; font-size: 0.95rem; }
        :focus-visible { outline: 3px solid #b35900; outline-offset: 2px; }
        .error { color: #a51d2d; font-weight: 600; }
        .warning { color: #7a4a00; font-weight: 600; }
        .field-error { margin: 0.3rem 0 0; }
        [aria-invalid="true"] { border: 2px solid #a51d2d; }
        .state { font-weight: 600; }
        .severity-error td { color: #a51d2d; }
        .severity-error td[data-label="Level"] { font-weight: 700; }
        .severity-warning td[data-label="Level"] { color: #7a4a00; font-weight: 700; }
        button.danger, .actions button.danger { background: #a51d2d; border-color: #a51d2d; }
        .actions button.danger { margin-left: 1.5rem; }
        .consequence { border-left: 4px solid #a51d2d; padding-left: 0.75rem; }
        .confirm .cancel { display: inline-block; margin-left: 1.25rem; }
        .notice { color: #1f5f2c; font-weight: 600; }
        .first-operator { border-left: 4px solid #0b4f9c; padding-left: 0.75rem; }
        code { font-size: 1.05rem; word-break: break-all; }
        .qr { display: block; image-rendering: pixelated; max-width: 100%; height: auto; }
        .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: 1rem; list-style: none; padding: 0; }
        .figures li { border: 1px solid #c9ced6; border-radius: 6px; padding: 0.75rem 1rem; }
        .figures .label { display: block; font-size: 0.95rem; }
        .figures .value { display: block; margin-top: 0.25rem; font-size: 1.6rem; font-weight: 700; }
        [role="search"] { display: flex; flex-wrap: wrap; gap: 0 0.75rem; align-items: end; }
        [role="search"] label { flex-basis: 100%; }
        [role="search"] input, select { flex: 1; min-width: 10rem; font-size: 1.05rem; padding: 0.5rem; }
        .quiet { color: #4b535c; font-size: 0.9rem; }
        .downloads { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; }
        td { overflow-wrap: anywhere; }
        td[data-label*="UTC"], td[data-label="Time"], td[data-label="Added"], td[data-label="Linked"],
        td[data-label="Last contact"], td[data-label="Version"], td[data-label="App version"], td[data-label="Status"],
        td[data-label="Level"], td[data-label="Via"], td[data-label="Received"], td[data-label="Made on the device"], td[data-label="ID"], .actions button { white-space: nowrap; }
        table { border-collapse: collapse; margin-top: 1.25rem; width: 100%; }
        caption { text-align: left; font-weight: 600; padding-bottom: 0.5rem; }
        th, td { text-align: left; padding: 0.45rem 0.6rem; border-bottom: 1px solid #c9ced6; vertical-align: top; }
        .actions { display: flex; flex-wrap: wrap; gap: 0.4rem; }
        .actions button { margin-top: 0; padding: 0.3rem 0.7rem; font-size: 0.95rem; }
        .hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
        fieldset { border: 1px solid #c9ced6; border-radius: 6px; margin: 1.25rem 0 0; padding: 0.5rem 1rem 1rem; }
        legend { font-weight: 700; padding: 0 0.3rem; }
        .check { display: flex; gap: 0.5rem; align-items: center; margin-top: 1rem; }
        .check input { display: inline; width: auto; margin: 0; }
        .check label { margin: 0; }
        .hint { margin: 0.2rem 0 0; }
        .links { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; }
        .facts dt { font-weight: 600; }
        .facts dd { margin: 0; }
        .attention li { margin: 0.3rem 0; }
        .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(22rem, 100%), 1fr)); gap: 1.5rem; }
        .chart h3 { margin: 0.5rem 0 0.25rem; }
        .chart svg { display: block; width: 100%; height: auto; }
        .chart p { margin: 0.25rem 0; }
        .grid { stroke: #c9ced6; stroke-width: 1; }
        .tick { fill: #4b535c; font-size: 16px; }
        .series-0 { fill: #0b4f9c; background: #0b4f9c; }
        .series-1 { fill: #b35900; background: #b35900; }
        .series-2 { fill: #a51d2d; background: #a51d2d; }
        .legend { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; padding: 0; margin: 0.25rem 0; }
        .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.35rem; border-radius: 2px; vertical-align: -0.05rem; }
        details { margin-top: 0.25rem; }
        details table { margin-top: 0.5rem; font-size: 0.95rem; }
        @media print { header, form, .links, .skip { display: none; } main { padding: 0; } }
        @media (max-width: 40rem) {
            thead { display: none; }
            td { display: block; border: 0; padding: 0.2rem 0; }
            td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
            tr { display: block; border-bottom: 1px solid #c9ced6; padding: 0.5rem 0; }
        }
        """
}

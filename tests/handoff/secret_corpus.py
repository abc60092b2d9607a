"""The scrubber's corpus: fake secrets of many kinds, and strings that only look like one.

``tests/data/secret_kinds.jsonl`` holds one fake value per kind and split; this module
places each value the ways a transcript carries secrets (plain in prose, JSON-escaped
inside a tool result, at the start of a line, in a ``.env``, a YAML file, a kubeconfig,
on a command line, in a ``tool_use`` input, in a ``tool_result`` output, in the user's
first message, correction, constraint and vocabulary, and where a long message is cut).
``tests/data/secret_lookalikes.jsonl`` holds the look-alikes, each placed the same ways.

Every value is random or made up here; none is a real credential. The files keep a
value in two fields (``head``, ``tail``) so that no token-shaped string sits whole in
the repository for other scanners to trip over. Each item carries its split: ``tune``
(what the rules were adjusted on) or ``held`` (only measured).

    .venv/bin/python -m tests.handoff.secret_corpus --write   # regenerate both files (seeded)
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import sys
import uuid
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
KINDS_FILE = DATA / "secret_kinds.jsonl"
LOOKALIKES_FILE = DATA / "secret_lookalikes.jsonl"

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
BASE32 = string.ascii_uppercase + "234567"
AGE = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


class Gen:
    """Seeded random pieces of fake credentials."""

    def __init__(self, seed: str):
        self.rng = random.Random(seed)

    def s(self, chars: str, n: int) -> str:
        while True:
            out = "".join(self.rng.choice(chars) for _ in range(n))
            # a real key mixes classes; a value that happens not to would be a poor test
            mixed = any(c.isdigit() for c in chars) and any(c.isalpha() for c in chars)
            if n < 8 or not mixed or chars in (HEX, AGE, BASE32, UPPER) or (
                    any(c.isdigit() for c in out) and any(c.isalpha() for c in out)):
                return out

    def password(self) -> str:
        words = ["river", "Lantern", "copper", "Mosaic", "tundra", "Falcon", "violet", "Harbor", "quartz"]
        return (self.rng.choice(words) + self.s(string.digits, 2) + self.rng.choice("!#%&*+-=?@^_")
                + self.rng.choice(words).upper()[:4] + self.s(ALNUM, 3))

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def b64(self, raw: bytes) -> str:
        return base64.b64encode(raw).decode()

    def pem(self, label: str, lines: int = 8) -> str:
        body = "\n".join(self.s(B64, 64) for _ in range(lines))
        return f"-----BEGIN {label}-----\n{body}\n{self.s(B64, 20)}==\n-----END {label}-----"

    def jwt(self, alg: str = "HS256", sig: int = 43) -> str:
        header = base64.urlsafe_b64encode(json.dumps({"alg": alg, "typ": "JWT"}).encode()).decode().rstrip("=")
        claims = {"sub": self.uuid(), "iat": self.rng.randint(1.6e9, 1.8e9), "role": "service"}
        payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        return f"{header}.{payload}.{self.s(B64URL, sig)}"


def _values(g: Gen) -> list[tuple]:
    """(kind, the redaction kinds that may name it, env name, value, plain sentence or None)."""
    pw = g.password
    discord_id = str(g.rng.randint(10**17, 10**18))
    return [
        ("aws-access-key-id", "AWS_ACCESS_KEY_ID", "AKIA" + g.s(BASE32, 16), None),
        ("aws-secret-access-key", "AWS_SECRET_ACCESS_KEY", g.s(B64, 40), "aws_secret_access_key = {secret}"),
        ("aws-session-token", "AWS_SESSION_TOKEN", "IQoJb3JpZ2luX2VjE" + g.s(B64, 280), "aws_session_token={secret}"),
        ("aws-bedrock-key", "AWS_BEARER_TOKEN_BEDROCK", "ABSK" + g.s(B64, 132), None),
        ("github-pat", "GITHUB_TOKEN", "ghp_" + g.s(ALNUM, 36), None),
        ("github-oauth", "GH_OAUTH_TOKEN", "gho_" + g.s(ALNUM, 36), None),
        ("github-user-to-server", "GH_APP_TOKEN", "ghu_" + g.s(ALNUM, 36), None),
        ("github-server-to-server", "GH_INSTALLATION_TOKEN", "ghs_" + g.s(ALNUM, 36), None),
        ("github-refresh", "GH_REFRESH_TOKEN", "ghr_" + g.s(ALNUM, 36), None),
        ("github-fine-grained", "GH_PAT", "github_pat_" + g.s(ALNUM, 22) + "_" + g.s(ALNUM, 59), None),
        ("gitlab-pat", "GITLAB_TOKEN", "glpat-" + g.s(B64URL, 20), None),
        ("gitlab-deploy-token", "GITLAB_DEPLOY_TOKEN", "gldt-" + g.s(B64URL, 20), None),
        ("gitlab-runner-token", "RUNNER_TOKEN", "glrt-" + g.s(B64URL, 20), None),
        ("gitlab-trigger-token", "CI_TRIGGER_TOKEN", "glptt-" + g.s(HEX, 40), None),
        ("gitlab-feed-token", "GITLAB_FEED_TOKEN", "glft-" + g.s(B64URL, 20), None),
        ("gitlab-oauth-secret", "GITLAB_OAUTH_SECRET", "gloas-" + g.s(B64URL, 64), None),
        ("gitlab-ci-job-token", "CI_JOB_TOKEN", "glcbt-64_" + g.s(B64URL, 20), None),
        ("gitlab-agent-token", "KAS_TOKEN", "glagent-" + g.s(B64URL, 50), None),
        ("gitlab-registration-token", "REGISTRATION_TOKEN", "GR1348941" + g.s(B64URL, 20), None),
        ("slack-bot-token", "SLACK_BOT_TOKEN",
         f"xoxb-{g.s(string.digits, 12)}-{g.s(string.digits, 13)}-{g.s(ALNUM, 24)}", None),
        ("slack-user-token", "SLACK_USER_TOKEN",
         f"xoxp-{g.s(string.digits, 12)}-{g.s(string.digits, 12)}-{g.s(string.digits, 13)}-{g.s(HEX, 32)}", None),
        ("slack-app-token", "SLACK_APP_TOKEN",
         f"xapp-1-A{g.s(UPPER, 10)}-{g.s(string.digits, 13)}-{g.s(HEX, 64)}", None),
        ("slack-webhook", "SLACK_WEBHOOK_URL",
         f"https://hooks.slack.com/services/T{g.s(UPPER, 8)}/B{g.s(UPPER, 10)}/{g.s(ALNUM, 24)}", None),
        ("stripe-live-secret", "STRIPE_SECRET_KEY", "sk_live_" + g.s(ALNUM, 99), None),
        ("stripe-test-secret", "STRIPE_TEST_KEY", "sk_test_" + g.s(ALNUM, 24), None),
        ("stripe-restricted", "STRIPE_RESTRICTED_KEY", "rk_live_" + g.s(ALNUM, 24), None),
        ("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", "whsec_" + g.s(ALNUM, 32), None),
        ("openai-project-key", "OPENAI_API_KEY",
         "sk-proj-" + g.s(B64URL, 74) + "T3BlbkFJ" + g.s(B64URL, 74), None),
        ("openai-service-account", "OPENAI_SVC_KEY",
         "sk-svcacct-" + g.s(B64URL, 58) + "T3BlbkFJ" + g.s(B64URL, 58), None),
        ("openai-legacy-key", "OPENAI_KEY", "sk-" + g.s(ALNUM, 20) + "T3BlbkFJ" + g.s(ALNUM, 20), None),
        ("anthropic-api-key", "ANTHROPIC_API_KEY", "sk-ant-api03-" + g.s(B64URL, 93) + "AA", None),
        ("anthropic-admin-key", "ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-" + g.s(B64URL, 93) + "AA", None),
        ("anthropic-oauth-token", "CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-" + g.s(B64URL, 93) + "AA", None),
        ("openrouter-key", "OPENROUTER_API_KEY", "sk-or-v1-" + g.s(HEX, 64), None),
        ("deepseek-key", "DEEPSEEK_API_KEY", "sk-" + g.s(HEX, 32), None),
        ("google-api-key", "GOOGLE_API_KEY", "AIza" + g.s(B64URL, 35), None),
        ("google-oauth-client-secret", "GOOGLE_CLIENT_SECRET", "GOCSPX-" + g.s(B64URL, 28), None),
        ("google-oauth-access-token", "GOOGLE_ACCESS_TOKEN", "ya29." + g.s(B64URL, 120), None),
        ("google-refresh-token", "GOOGLE_REFRESH_TOKEN", "1//0" + g.s(B64URL, 99), None),
        ("gcp-private-key-id", "private_key_id", g.s(HEX, 40), '"private_key_id": "{secret}",'),
        ("jwt-hs256", "SESSION_JWT", g.jwt("HS256", 43), None),
        ("jwt-rs256", "ID_TOKEN", g.jwt("RS256", 342), None),
        ("grafana-api-key", "GRAFANA_API_KEY", "eyJrIjoi" + g.s(ALNUM, 72) + "In0=", None),
        ("grafana-cloud-token", "GRAFANA_CLOUD_TOKEN", "glc_" + g.s(ALNUM, 120) + "==", None),
        ("grafana-service-account", "GRAFANA_SA_TOKEN", "glsa_" + g.s(ALNUM, 32) + "_" + g.s(HEX, 8), None),
        ("npm-token", "NPM_TOKEN", "npm_" + g.s(ALNUM, 36), None),
        ("pypi-token", "PYPI_TOKEN", "pypi-AgEIcHlwaS5vcmc" + g.s(B64URL, 130), None),
        ("sendgrid-key", "SENDGRID_API_KEY", "SG." + g.s(B64URL, 22) + "." + g.s(B64URL, 43), None),
        ("brevo-key", "BREVO_API_KEY", "xkeysib-" + g.s(HEX, 64) + "-" + g.s(ALNUM, 16), None),
        ("twilio-api-key", "TWILIO_API_KEY", "SK" + g.s(HEX, 32), None),
        ("twilio-auth-token", "TWILIO_AUTH_TOKEN", g.s(HEX, 32), "TWILIO_AUTH_TOKEN={secret}"),
        ("mailchimp-key", "MAILCHIMP_API_KEY", g.s(HEX, 32) + "-us" + str(g.rng.randint(1, 21)), None),
        ("mailgun-key", "MAILGUN_API_KEY", "key-" + g.s(HEX, 32), None),
        ("mailgun-sending-key", "MAILGUN_SENDING_KEY", f"{g.s(HEX, 32)}-{g.s(HEX, 8)}-{g.s(HEX, 8)}",
         "MAILGUN_SENDING_KEY={secret}"),
        ("telegram-bot-token", "TELEGRAM_BOT_TOKEN", f"{g.rng.randint(10**8, 10**9)}:AA{g.s(B64URL, 33)}", None),
        ("square-access-token", "SQUARE_ACCESS_TOKEN", "EAAA" + g.s(B64URL, 60), None),
        ("square-oauth-secret", "SQUARE_OAUTH_SECRET", "sq0csp-" + g.s(B64URL, 43), None),
        ("shopify-access-token", "SHOPIFY_ACCESS_TOKEN", "shpat_" + g.s(HEX, 32), None),
        ("shopify-shared-secret", "SHOPIFY_API_SECRET", "shpss_" + g.s(HEX, 32), None),
        ("vault-service-token", "VAULT_TOKEN", "hvs." + g.s(B64URL, 90), None),
        ("vault-batch-token", "VAULT_BATCH_TOKEN", "hvb." + g.s(B64URL, 138), None),
        ("digitalocean-pat", "DIGITALOCEAN_TOKEN", "dop_v1_" + g.s(HEX, 64), None),
        ("digitalocean-oauth", "DO_OAUTH_TOKEN", "doo_v1_" + g.s(HEX, 64), None),
        ("huggingface-token", "HF_TOKEN", "hf_" + g.s(string.ascii_letters, 34), None),
        ("atlassian-api-token", "JIRA_API_TOKEN", "ATATT3xFfGF0" + g.s(B64URL, 180), None),
        ("bitbucket-app-password", "BITBUCKET_APP_PASSWORD", "ATBB" + g.s(ALNUM, 32), None),
        ("doppler-token", "DOPPLER_TOKEN", "dp.pt." + g.s(ALNUM, 43), None),
        ("databricks-token", "DATABRICKS_TOKEN", "dapi" + g.s(HEX, 32), None),
        ("linear-api-key", "LINEAR_API_KEY", "lin_api_" + g.s(ALNUM, 40), None),
        ("planetscale-token", "PLANETSCALE_TOKEN", "pscale_tkn_" + g.s(ALNUM, 43), None),
        ("sentry-user-token", "SENTRY_AUTH_TOKEN", "sntryu_" + g.s(HEX, 64), None),
        ("newrelic-user-key", "NEW_RELIC_API_KEY", "NRAK-" + g.s(UPPER, 27), None),
        ("postman-key", "POSTMAN_API_KEY", f"PMAK-{g.s(HEX, 24)}-{g.s(HEX, 34)}", None),
        ("docker-pat", "DOCKER_PAT", "dckr_pat_" + g.s(B64URL, 27), None),
        ("age-secret-key", "SOPS_AGE_KEY", "AGE-SECRET-KEY-1" + g.s(AGE, 58), None),
        ("1password-secret-key", "OP_SECRET_KEY",
         f"A3-{g.s(UPPER, 6)}-{g.s(UPPER, 11)}-{g.s(UPPER, 5)}-{g.s(UPPER, 5)}-{g.s(UPPER, 5)}", None),
        ("alibaba-access-key", "ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAI" + g.s(ALNUM, 20), None),
        ("artifactory-api-key", "ARTIFACTORY_API_KEY", "AKCp" + g.s(ALNUM, 69), None),
        ("clojars-token", "CLOJARS_TOKEN", "CLOJARS_" + g.s(LOWER, 60), None),
        ("contentful-pat", "CONTENTFUL_MANAGEMENT_TOKEN", "CFPAT-" + g.s(B64URL, 43), None),
        ("dynatrace-token", "DT_API_TOKEN", f"dt0c01.{g.s(UPPER, 24)}.{g.s(ALNUM, 64)}", None),
        ("easypost-key", "EASYPOST_API_KEY", "EZAK" + g.s(ALNUM, 54), None),
        ("figma-token", "FIGMA_TOKEN", "figd_" + g.s(B64URL, 40), None),
        ("flutterwave-secret", "FLW_SECRET_KEY", "FLWSECK_TEST-" + g.s(HEX, 32) + "-X", None),
        ("frameio-token", "FRAMEIO_TOKEN", "fio-u-" + g.s(B64URL, 64), None),
        ("groq-key", "GROQ_API_KEY", "gsk_" + g.s(ALNUM, 52), None),
        ("heroku-key-v2", "HEROKU_API_KEY", "HRKU-AA" + g.s(B64URL, 58), None),
        ("heroku-key-uuid", "HEROKU_API_KEY", g.uuid(), "HEROKU_API_KEY={secret}"),
        ("infracost-token", "INFRACOST_API_KEY", "ico-" + g.s(ALNUM, 32), None),
        ("langsmith-key", "LANGSMITH_API_KEY", f"lsv2_pt_{g.s(HEX, 32)}_{g.s(HEX, 10)}", None),
        ("mapbox-secret-token", "MAPBOX_SECRET_TOKEN", f"sk.eyJ1Ijoi{g.s(ALNUM, 40)}.{g.s(B64URL, 22)}", None),
        ("maxmind-license-key", "MAXMIND_LICENSE_KEY", f"{g.s(ALNUM, 6)}_{g.s(ALNUM, 29)}_mmk", None),
        ("netlify-token", "NETLIFY_AUTH_TOKEN", "nfp_" + g.s(ALNUM, 36), None),
        ("notion-token", "NOTION_TOKEN", "ntn_" + g.s(string.digits, 11) + g.s(ALNUM, 35), None),
        ("perplexity-key", "PERPLEXITY_API_KEY", "pplx-" + g.s(ALNUM, 48), None),
        ("pinecone-key", "PINECONE_API_KEY", f"pcsk_{g.s(ALNUM, 6)}_{g.s(ALNUM, 64)}", None),
        ("prefect-key", "PREFECT_API_KEY", "pnu_" + g.s(ALNUM, 36), None),
        ("pulumi-token", "PULUMI_ACCESS_TOKEN", "pul-" + g.s(HEX, 40), None),
        ("readme-key", "README_API_KEY", "rdme_" + g.s(LOWER, 70), None),
        ("replicate-token", "REPLICATE_API_TOKEN", "r8_" + g.s(ALNUM, 37), None),
        ("rubygems-key", "GEM_HOST_API_KEY", "rubygems_" + g.s(HEX, 48), None),
        ("scalingo-token", "SCALINGO_API_TOKEN", "tk-us-" + g.s(B64URL, 48), None),
        ("shippo-token", "SHIPPO_API_TOKEN", "shippo_live_" + g.s(HEX, 40), None),
        ("sonarqube-token", "SONAR_TOKEN", "squ_" + g.s(HEX, 40), None),
        ("supabase-token", "SUPABASE_ACCESS_TOKEN", "sbp_" + g.s(HEX, 40), None),
        ("tailscale-key", "TS_AUTHKEY", f"tskey-auth-{g.s(ALNUM, 11)}-{g.s(ALNUM, 32)}", None),
        ("typeform-token", "TYPEFORM_TOKEN", "tfp_" + g.s(B64URL, 59), None),
        ("buildkite-token", "BUILDKITE_API_TOKEN", "bkua_" + g.s(HEX, 40), None),
        ("circleci-token", "CIRCLECI_TOKEN", f"CCIPAT_{g.s(ALNUM, 22)}_{g.s(HEX, 40)}", None),
        ("xai-key", "XAI_API_KEY", "xai-" + g.s(ALNUM, 80), None),
        ("yandex-api-key", "YC_API_KEY", "AQVN" + g.s(B64URL, 36), None),
        ("discord-bot-token", "DISCORD_TOKEN",
         base64.b64encode(discord_id.encode()).decode().rstrip("=") + "." + g.s(B64URL, 6) + "." + g.s(B64URL, 38),
         None),
        ("discord-webhook", "DISCORD_WEBHOOK_URL",
         f"https://discord.com/api/webhooks/{discord_id}/{g.s(B64URL, 68)}", None),
        ("teams-webhook", "TEAMS_WEBHOOK_URL",
         f"https://acme.webhook.office.com/webhookb2/{g.uuid()}@{g.uuid()}/IncomingWebhook/{g.s(HEX, 32)}/"
         f"{g.uuid()}", None),
        ("azure-storage-key", "AZURE_STORAGE_CONNECTION_STRING", g.s(B64, 86) + "==",
         "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={secret};EndpointSuffix=core.windows.net"),
        ("azure-sas-token", "AZURE_SAS_URL", g.s(B64URL.replace("-", "").replace("_", ""), 43) + "%3D",
         "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sp=r&sig={secret}"),
        ("azure-client-secret", "AZURE_CLIENT_SECRET", f"{g.s(ALNUM, 3)}8Q~{g.s(ALNUM, 34)}", None),
        ("private-key-rsa", "private_key", g.pem("RSA PRIVATE KEY"), None),
        ("private-key-openssh", "ssh_key", g.pem("OPENSSH PRIVATE KEY"), None),
        ("private-key-ec", "ec_key", g.pem("EC PRIVATE KEY", 3), None),
        ("private-key-pkcs8", "private_key", g.pem("PRIVATE KEY"), None),
        ("pgp-private-key", "gpg_key", g.pem("PGP PRIVATE KEY BLOCK"), None),
        ("kubeconfig-client-key-data", "client-key-data", g.b64(g.pem("RSA PRIVATE KEY", 4).encode()),
         "client-key-data: {secret}"),
        ("putty-private-key", "ppk", f"{g.s(B64, 44)}\nPrivate-MAC: {g.s(HEX, 64)}",
         "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
         f"{g.s(B64, 64)}\n{g.s(B64, 20)}\nPrivate-Lines: 1\n{{secret}}"),
        ("basic-auth-url", "API_URL", pw(), "https://deploy:{secret}@api.example.com/v1"),
        ("postgres-url", "DATABASE_URL", pw(), "postgres://app:{secret}@db.internal:5432/app"),
        ("redis-url-no-user", "REDIS_URL", pw(), "redis://:{secret}@cache.internal:6379/0"),
        ("mongodb-srv-url", "MONGODB_URI", pw(), "mongodb+srv://svc:{secret}@cluster0.ab1cd.mongodb.net/app"),
        ("amqp-url", "BROKER_URL", pw(), "amqp://worker:{secret}@rabbit.internal:5672/"),
        ("authorization-bearer", "AUTH_HEADER", g.s(ALNUM, 40), "Authorization: Bearer {secret}"),
        ("authorization-basic", "BASIC_AUTH_HEADER", g.b64(f"admin:{pw()}".encode()), "Authorization: Basic {secret}"),
        ("api-key-header", "API_KEY_HEADER", g.s(ALNUM, 32), "X-API-Key: {secret}"),
        ("docker-config-auth", "auth", g.b64(f"robot:{pw()}".encode()),
         '{{"auths": {{"ghcr.io": {{"auth": "{secret}"}}}}}}'),
        ("mysql-password", "MYSQL_PWD", pw(), "mysql -h db.internal -u root -p{secret} app"),
        ("curl-user-password", "CURL_USER", pw(), "curl -u admin:{secret} https://api.example.com/v1/status"),
        ("docker-login-password", "REGISTRY_PASSWORD", pw(), "docker login -u ci -p {secret} registry.example.com"),
        ("sshpass-password", "SSHPASS", pw(), "sshpass -p '{secret}' ssh deploy@10.0.0.5"),
        ("redis-cli-password", "REDISCLI_AUTH", pw(), "redis-cli -h cache.internal -a {secret} PING"),
        ("netrc-password", "NETRC_PASSWORD", pw(), "machine api.example.com login deploy password {secret}"),
        ("env-password", "DB_PASSWORD", pw(), "DB_PASSWORD={secret}"),
        ("json-password", "password", pw(), '{{"user": "svc", "password": "{secret}"}}'),
        ("yaml-password", "password", pw(), "  password: {secret}"),
        ("ini-password", "password", pw(), "password = {secret}"),
        ("django-secret-key", "SECRET_KEY", "django-insecure-" + g.s(ALNUM + "!@#%^&*(-_=+)", 50),
         "SECRET_KEY = '{secret}'"),
        ("rails-secret-key-base", "SECRET_KEY_BASE", g.s(HEX, 128), "SECRET_KEY_BASE={secret}"),
        ("jdbc-password", "JDBC_URL", pw(), "jdbc:mysql://db.internal:3306/app?user=app&password={secret}"),
        ("connection-string-password", "SQL_CONNECTION", pw(),
         "Server=sql.internal;Database=app;User Id=sa;Password={secret};TrustServerCertificate=true"),
        ("session-cookie", "SESSION_COOKIE", g.s(ALNUM, 32), "Cookie: theme=dark; sessionid={secret}; lang=en"),
        ("aws-presigned-url", "DOWNLOAD_URL", g.s(HEX, 64),
         "https://acme.s3.amazonaws.com/r.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature={secret}"),
        ("npmrc-legacy-token", "NPM_AUTH_TOKEN", g.uuid(), "//registry.npmjs.org/:_authToken={secret}"),
        ("pgpassword", "PGPASSWORD", pw(), "PGPASSWORD={secret} psql -h db.internal -U app"),
        ("openssl-passout", "KEY_PASSPHRASE", pw(), "openssl genrsa -aes256 -passout pass:{secret} -out key.pem 4096"),
        ("generic-api-key-env", "WEATHER_API_KEY", g.s(ALNUM, 32), "WEATHER_API_KEY={secret}"),
        ("k8s-secret-data", "password", g.b64(pw().encode()), "data:\n  password: {secret}"),
        ("client-secret-json", "client_secret", g.s(B64URL, 40), '{{"client_id": "app", "client_secret": "{secret}"}}'),
        ("token-query-param", "WEBHOOK", g.s(ALNUM, 40), "https://hooks.example.com/notify?token={secret}&v=2"),
    ]


SPLITS = ("tune", "held")


def build_kinds() -> list[dict]:
    """Two fake values per kind, one per split."""
    items = []
    for split in SPLITS:
        g = Gen(f"git-refocus secret corpus {split}")
        for kind, name, value, plain in _values(g):
            items.append({"kind": kind, "split": split, "name": name, "head": value[:3], "tail": value[3:],
                          "plain": plain})
    return items


# -- look-alikes -------------------------------------------------------------------------------
def _lookalike_values(g: Gen) -> list[tuple[str, str]]:
    """(what, text): ordinary strings shaped like secrets, or sitting where one could."""
    out: list[tuple[str, str]] = []
    add = lambda what, text: out.append((what, text))  # noqa: E731
    for _ in range(12):
        add("commit-id", g.s(HEX, 40))
        add("sha256", g.s(HEX, 64))
        add("md5", g.s(HEX, 32))
        add("uuid", g.uuid())
        add("uuid-upper", g.uuid().upper())
        add("short-sha", f"commit {g.s(HEX, 7)} fixed it")
        add("docker-digest", f"image@sha256:{g.s(HEX, 64)}")
        add("sri-hash", f'integrity="sha384-{g.s(B64, 64)}"')
        add("npm-integrity", f'"integrity": "sha512-{g.s(B64, 86)}=="')
        add("go-sum", f"github.com/acme/lib v1.2.{g.rng.randint(0, 9)} h1:{g.s(B64, 43)}=")
        add("base64-png", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA" + g.s(B64, 300) + "==")
        add("base64-random", g.s(B64, 120) + "=")
        add("ipfs-cidv0", "Qm" + g.s("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 44))
        add("ipfs-cidv1", "bafybei" + g.s("abcdefghijklmnopqrstuvwxyz234567", 52))
        add("stripe-publishable", "pk_live_" + g.s(ALNUM, 99))
        add("stripe-publishable-test", "pk_test_" + g.s(ALNUM, 24))
        add("eyj-single-segment", "eyJ" + g.s(B64URL, 40))
        add("eyj-json-base64", base64.b64encode(json.dumps({"page": g.rng.randint(1, 99), "cursor": g.uuid()})
                                                 .encode()).decode())
        add("ssh-public-key", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.s(B64, 43)} dev@laptop")
        add("ssh-rsa-public-key", f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{g.s(B64, 300)} ci@build")
        add("certificate", "-----BEGIN CERTIFICATE-----\n" + g.s(B64, 64) + "\n" + g.s(B64, 40)
            + "==\n-----END CERTIFICATE-----")
        add("public-key-pem", "-----BEGIN PUBLIC KEY-----\n" + g.s(B64, 64) + "\n-----END PUBLIC KEY-----")
        add("claude-message-id", "msg_01" + g.s(ALNUM, 22))
        add("claude-tool-use-id", "toolu_01" + g.s(ALNUM, 22))
        add("request-id", "req_01" + g.s(ALNUM, 22))
        add("thinking-signature", '"signature": "' + g.s(B64, 200) + '=="')
        add("google-client-id", f"{g.rng.randint(10**11, 10**12)}-{g.s(LOWER, 32)}.apps.googleusercontent.com")
        add("aws-arn", f"arn:aws:iam::{g.rng.randint(10**11, 10**12)}:role/deploy-{g.s(LOWER, 6)}")
        add("aws-account-id", f"account {g.rng.randint(10**11, 10**12)}")
        add("slack-channel-id", f"channel C0{g.s(UPPER, 9)}")
        add("semver", f"version {g.rng.randint(0, 9)}.{g.rng.randint(0, 30)}.{g.rng.randint(0, 99)}-rc.1")
        add("hex-color", f"color: #{g.s(HEX, 6)};")
        add("file-path", f"src/{g.s(string.ascii_lowercase, 8)}/{g.s(string.ascii_lowercase, 6)}_token_store.py")
        add("url-no-credentials", f"https://api.example.com/v1/users/{g.uuid()}?page=2&per_page=50")
        add("url-with-port", f"http://localhost:{g.rng.randint(1024, 65535)}/health")
        add("email", f"{g.s(string.ascii_lowercase, 7)}@example.com")
        add("git-remote", f"git@github.com:acme/{g.s(string.ascii_lowercase, 9)}.git")
        add("ssh-url", f"ssh://git@gitlab.example.com:2222/acme/{g.s(string.ascii_lowercase, 6)}.git")
        add("twilio-like-word", f"TASK{g.s(HEX, 32)}")
        add("test-name", f"test_token_{g.s(string.ascii_lowercase, 10)}_is_refreshed")
        add("identifier", f"cacheCreationEphemeral{g.rng.randint(1, 9)}mInputTokens")
        add("snake-identifier", f"build_{g.s(string.ascii_lowercase, 5)}_access_token_header")
        add("placeholder-angle", f"Authorization: Bearer <{g.rng.choice(['your-token', 'TOKEN', 'api key'])}>")
        add("placeholder-env", f"{g.rng.choice(['API_KEY', 'GITHUB_TOKEN', 'DB_PASSWORD'])}=${{{g.s(UPPER, 6)}}}")
        add("placeholder-dollar", f"--token ${g.rng.choice(['GITHUB_TOKEN', 'NPM_TOKEN', 'CI_JOB_TOKEN'])}")
        add("placeholder-x", f"OPENAI_API_KEY=sk-{'x' * g.rng.randint(20, 48)}")
        add("placeholder-ghp", f"ghp_{'X' * 36}")
        add("placeholder-your", f"api_key: your_api_key_here_{g.rng.randint(1, 99)}")
        add("placeholder-ellipsis", f"ANTHROPIC_API_KEY=sk-ant-{g.rng.choice(['...', '…', 'xxxx'])}")
        add("placeholder-template", "postgres://{user}:{password}@{host}:5432/{db}")
        add("placeholder-changeme", f"password: {g.rng.choice(['changeme', 'CHANGEME', '<password>', '********'])}")
        add("aws-example-key", "AKIAIOSFODNN7EXAMPLE")
        add("csrf-token-json", f'"csrf_token": "{g.s(ALNUM, 40)}"')
        add("csrf-django-input", f'<input type="hidden" name="csrfmiddlewaretoken" value="{g.s(ALNUM, 64)}">')
        add("csrf-header", f"X-CSRF-Token: {g.s(B64URL, 43)}")
        add("csrf-rails", f'<meta name="csrf-token" content="{g.s(B64, 86)}==" />')
        add("csrf-cookie", f"Cookie: csrftoken={g.s(ALNUM, 32)}; theme=dark")
        add("xsrf-cookie", f"Set-Cookie: XSRF-TOKEN={g.s(B64URL, 40)}; Path=/")
        add("go-expression", g.rng.choice([
            'token := os.Getenv("GITHUB_TOKEN")', "apiKey: cfg.APIKey,", 'secret := []byte(viper.GetString("jwt.secret"))',
            "password, err := readPassword(r.Context())", "Token: strings.TrimSpace(string(out)),",
            "if token == \"\" {", "auth := req.Header.Get(\"Authorization\")"]))
        add("python-expression", g.rng.choice([
            'api_key = os.environ["OPENAI_API_KEY"]', "password = getpass.getpass()",
            "token = request.headers.get('X-Token')", "client = Client(api_key=settings.API_KEY)",
            "secret_key = config['app']['secret_key']", "self.token = token", "login(username=user, password=password)"]))
        add("js-expression", g.rng.choice([
            "const apiKey = process.env.STRIPE_KEY;", "headers: { Authorization: `Bearer ${token}` },",
            "password: z.string().min(8),", "const { token } = await res.json();", "secret: env.JWT_SECRET,",
            "apiKey: import.meta.env.VITE_API_KEY,"]))
        add("type-annotation", g.rng.choice([
            "password: str", "token: Optional[str] = None", "api_key: SecretStr", "  token: string;",
            "secret?: string", "pub api_key: String,", "Password string `json:\"password\"`"]))
        add("token-count", g.rng.choice([
            f'"max_tokens": {g.rng.randint(256, 64000)}', f"input_tokens={g.rng.randint(1, 90000)}",
            f"MAX_TOKENS={g.rng.randint(256, 8192)}", f"token_count: {g.rng.randint(1, 9999)}"]))
        add("metadata-name", g.rng.choice([
            "secretName: tls-cert", "password_min_length: 12", "token_type: Bearer", "auth_type: oauth2",
            "key_id: " + g.s(HEX, 16), "secret_arn: arn:aws:secretsmanager:us-east-1:123:secret:db",
            "TOKEN_TTL=3600", "PASSWORD_RESET_URL=https://example.com/reset"]))
        add("k8s-secret-ref", "valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password")
        add("prose-password", g.rng.choice([
            "The password must be at least 12 characters long.", "Rotate the token every 90 days.",
            "Enter your password to continue", "password: the user must choose one on first login",
            "the API key is read from the environment, never from the repo"]))
        add("json-prose-password", '{"password": "' + g.rng.choice(
            ["Enter your password", "Password is required", "must be 8 characters"]) + '"}')
        add("log-line", f"2026-01-05T09:{g.rng.randint(10, 59)}:00Z INFO token refreshed for user {g.uuid()}")
        add("sentry-dsn-public", f"https://{g.s(HEX, 32)}@o{g.rng.randint(10**5, 10**6)}.ingest.sentry.io/"
            f"{g.rng.randint(10**6, 10**7)}")
        add("mapbox-public-token", f"pk.eyJ1Ijoi{g.s(ALNUM, 40)}.{g.s(B64URL, 22)}")
        add("base64-json-config", base64.b64encode(json.dumps({"theme": "dark", "width": g.rng.randint(1, 999)})
                                                    .encode()).decode())
        add("minified-js", "function(e){return e.token=n.a(" + g.s(string.ascii_lowercase, 4) + "),e}")
        add("css-hash-class", f".css-{g.s(LOWER, 6)} {{ color: red }}")
        add("random-word-salad", " ".join(g.rng.choice(["secret", "sauce", "token", "ring", "key", "note", "pass"])
                                           for _ in range(5)))
    return out


def build_lookalikes() -> list[dict]:
    items = []
    for split in SPLITS:
        g = Gen(f"git-refocus look-alike corpus {split}")
        for what, text in _lookalike_values(g):
            items.append({"what": what, "split": split, "text": text})
    return items


# -- loading and placing -------------------------------------------------------------------------
def kinds(split: str | None = None) -> list[dict]:
    with open(KINDS_FILE, encoding="utf-8") as fh:
        items = [json.loads(line) for line in fh if line.strip()]
    for item in items:
        item["secret"] = item.pop("head") + item.pop("tail")
    return [i for i in items if split is None or i["split"] == split]


def lookalikes(split: str | None = None) -> list[dict]:
    with open(LOOKALIKES_FILE, encoding="utf-8") as fh:
        items = [json.loads(line) for line in fh if line.strip()]
    return [i for i in items if split is None or i["split"] == split]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def write() -> None:
    with open(KINDS_FILE, "w", encoding="utf-8") as fh:
        for item in build_kinds():
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    with open(LOOKALIKES_FILE, "w", encoding="utf-8") as fh:
        for item in build_lookalikes():
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write"]:
        write()
        print(f"wrote {KINDS_FILE} ({len(build_kinds())}) and {LOOKALIKES_FILE} ({len(build_lookalikes())})")
    else:
        print(__doc__)

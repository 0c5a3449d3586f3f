"""Human table and machine JSON views of an inventory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from teardown import pricing
from teardown.model import SERVICES, Finding, Inventory

COLUMNS = ("SERVICE", "KIND", "NAME", "STATUS", "EST. COST")


def cost_text(f: Finding) -> str:
    if f.usd_per_hour is not None:
        return f"${f.usd_per_hour:,.3f}/hour (~${f.usd_per_month or 0:,.0f}/month)"
    if f.billing and f.usd_per_month is None:
        return "unknown"
    if f.usd_per_month is not None and (f.billing or f.usd_per_month > 0):
        if f.usd_per_month < 0.01:
            return "<$0.01/month"
        return f"${f.usd_per_month:,.2f}/month"
    return "-"


def totals(inventory: Inventory) -> dict[str, float]:
    hourly = sum(f.usd_per_hour or 0.0 for f in inventory.findings)
    monthly = sum(f.usd_per_month or 0.0 for f in inventory.findings)
    return {"est_usd_per_hour": round(hourly, 6), "est_usd_per_month": round(monthly, 6)}


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def render_table(inventory: Inventory) -> str:
    out = [
        f"Leftovers of app '{inventory.app_name}' in account {inventory.account}, "
        f"region {inventory.region}",
        "Image tags of this app from: "
        + (", ".join(inventory.image_ref_sources) or "nowhere (no cdk.out, no --image-tag)"),
        "",
    ]
    if inventory.findings:
        rows = [COLUMNS] + [
            (f.service, f.kind, f.name, f.status, cost_text(f)) for f in inventory.findings
        ]
        lines = _table(rows)
        out.append(lines[0])
        for f, line in zip(inventory.findings, lines[1:], strict=True):
            out.append(line + ("  BILLING" if f.billing else ""))
            out.append(f"    {f.detail}")
            if f.note:
                out.append(f"    note: {f.note}")
            if not f.deletable:
                out.append("    (reported only: --delete leaves it alone)")
    else:
        out.append("Nothing of this app was found.")

    out.append("")
    out.append("Services checked:")
    for service in SERVICES:
        check = inventory.checks.get(service)
        if check is None:
            continue
        out.append(f"  {service:<18} {check.status}")
        out.extend(f"      {reason}" for reason in check.reasons)

    t = totals(inventory)
    if inventory.findings:
        out.append("")
        unknown = [f.name for f in inventory.findings if f.billing and f.usd_per_month is None]
        out.append(
            f"Estimated cost while left: ${t['est_usd_per_hour']:,.3f}/hour from endpoints; "
            f"~${t['est_usd_per_month']:,.2f}/month in all (endpoints, storage)"
            + (f", plus {', '.join(unknown)} at an unknown price." if unknown else ".")
        )
        out.append(pricing.PRICING_NOTE)
    return "\n".join(out)


def summary_line(inventory: Inventory, exit_code: int) -> str:
    unchecked = len(inventory.unchecked)
    parts = [f"{len(inventory.findings)} leftover(s)"]
    if unchecked:
        parts.append(f"{unchecked} service(s) UNCHECKED: not known to be clean")
    if inventory.clean:
        parts = ["nothing left, every service checked"]
    return f"Result: {'; '.join(parts)} (exit {exit_code})."


def inventory_json(inventory: Inventory) -> dict[str, Any]:
    return {
        "app_name": inventory.app_name,
        "account": inventory.account,
        "region": inventory.region,
        "clean": inventory.clean,
        "image_tag_sources": inventory.image_ref_sources,
        "findings": [f.as_dict() for f in inventory.findings],
        "services": {
            name: {"status": c.status, "reasons": c.reasons} for name, c in inventory.checks.items()
        },
        "totals": totals(inventory),
        "pricing_note": pricing.PRICING_NOTE,
    }

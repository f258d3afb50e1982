"""The Invoice aggregate: lines, an optional discount, tax per rate and totals."""

from collections import defaultdict
from datetime import date
from decimal import Decimal

from .lines import InvoiceLine
from .money import round_money
from .tax import STANDARD_RATE, tax_on


class Invoice:
    def __init__(self, number, customer, currency="EUR", issued=None, discount=None):
        self.number = number
        self.customer = customer
        self.currency = currency
        self.issued = issued or date.today()
        self.discount = discount
        self.lines = []

    def add_line(self, description, quantity, unit_price, tax_rate=STANDARD_RATE):
        line = InvoiceLine(description, quantity, unit_price, tax_rate)
        self.lines.append(line)
        return line

    @property
    def subtotal(self):
        """Sum of the line nets, before discount and tax."""
        return sum((line.net for line in self.lines), Decimal("0.00"))

    @property
    def discount_total(self):
        if self.discount is None or not self.lines:
            return Decimal("0.00")
        return self.discount.amount_for(self.subtotal)

    def net_by_rate(self):
        """Line nets grouped by tax rate, lowest rate first."""
        nets = defaultdict(lambda: Decimal("0.00"))
        for line in self.lines:
            nets[line.tax_rate] += line.net
        return dict(sorted(nets.items()))

    def taxable_by_rate(self):
        """Net per tax rate after the discount, which is shared between the rates in proportion
        to their nets. The shares are rounded to cents; the last rate takes what rounding left
        over, so the shares always add up to the discount exactly."""
        nets = self.net_by_rate()
        discount = self.discount_total
        if not discount:
            return nets
        subtotal = self.subtotal
        remaining = discount
        taxable = {}
        rates = list(nets)
        for i, rate in enumerate(rates):
            share = remaining if i == len(rates) - 1 else round_money(discount * nets[rate] / subtotal)
            remaining -= share
            taxable[rate] = nets[rate] - share
        return taxable

    def tax_breakdown(self):
        """Tax due per rate on the discounted nets, lowest rate first."""
        return {rate: tax_on(net, rate) for rate, net in self.taxable_by_rate().items()}

    @property
    def tax_total(self):
        return sum(self.tax_breakdown().values(), Decimal("0.00"))

    @property
    def total(self):
        return self.subtotal - self.discount_total + self.tax_total

    def payment_schedule(self, **options):
        """Instalments of the total: whole cents, extra cents first, one every `interval_days`.
        Options: count, start, interval_days (default 30)."""
        from collections import namedtuple
        from datetime import timedelta

        count, start = options["count"], options["start"]
        interval_days = options.get("interval_days", 30)
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be a positive integer, got {count!r}")
        Instalment = namedtuple("Instalment", "due amount")
        cents = int(self.total * 100)
        base, extra = divmod(cents, count)
        return [
            Instalment(start + timedelta(days=i * interval_days), Decimal(base + (1 if i < extra else 0)) / 100)
            for i in range(count)
        ]
